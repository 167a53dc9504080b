package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/aqlstore/aqlstore"
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
	"github.com/spf13/cobra"
)

// Exit codes: 0 success; 1 the command failed (bad input, a conflict, a
// store that does not verify); 2 the command line itself is wrong; 130
// interrupted (Ctrl-C or SIGTERM), after the batch in flight was written.
const (
	exitOK          = 0
	exitFail        = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// Main is the CLI: its streams and the flags every command shares.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// StderrIsTerminal enables progress bars.
	StderrIsTerminal bool
	// StdoutIsTerminal makes query print a table for people instead of
	// the signed response (which --json still prints).
	StdoutIsTerminal bool

	dir    string // --dir
	asDID  string // --as: the principal reads and writes act as
	asJSON bool   // --json
	cache  string // --cache, a size

	// cacheDefault, when set, is the block cache in place of --cache's
	// default: `aqlstore serve` sets it when --cache is not given
	// (servecache.go).
	cacheDefault int64

	ix       *index.Index // the open store's index, set by open
	storeLog *slog.Logger // where the store reports background errors; nil: text on Stderr
	readOnly bool         // the command only reads: open the store read-only (readingCommands)
}

// readingCommands only read a store: they never create one (a mistyped
// --dir is an error, not a new empty store) and open it read-only, so a
// store directory they may not write works for them.
var readingCommands = map[string]bool{"get": true, "ls": true, "stats": true, "verify": true, "export": true,
	"query": true, "explain": true, "grants": true, "thread": true, "trace": true, "check": true}

// NewMain returns a Main on the process's standard streams.
func NewMain() *Main {
	return &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, StderrIsTerminal: isTerminal(os.Stderr),
		StdoutIsTerminal: isTerminal(os.Stdout)}
}

// usageError marks errors in the command line (exit code 2).
type usageError struct{ error }

// interruptedError says a command stopped because its context was
// cancelled (Ctrl-C), and what it had done by then (exit code 130).
type interruptedError struct{ done string }

func (e interruptedError) Error() string {
	if e.done == "" {
		return "interrupted"
	}
	return "interrupted: " + e.done
}

// interrupted reports whether err ended a command run under ctx because
// ctx was cancelled.
func interrupted(ctx context.Context, err error) bool {
	var ie interruptedError
	return errors.As(err, &ie) || (ctx.Err() != nil && errors.Is(err, ctx.Err()))
}

// Run runs the command line args and returns the process exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	stdout := &countingWriter{w: m.Stdout}
	m.Stdout = stdout
	defer func() { m.Stdout = stdout.w }()
	root := m.rootCommand()
	root.SetArgs(args)
	root.SetIn(m.Stdin)
	root.SetOut(m.Stdout)
	root.SetErr(m.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code, kind := exitFail, "failed"
	var ue usageError
	var pe *problemsError
	switch {
	case interrupted(ctx, err):
		var ie interruptedError
		if !errors.As(err, &ie) {
			err = interruptedError{}
		}
		code, kind = exitInterrupted, "interrupted"
	case errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command"):
		code, kind = exitUsage, "usage"
	case errors.As(err, &pe):
		kind = pe.code
	case errors.Is(err, store.ErrNotFound):
		kind = "not_found"
	case errors.Is(err, store.ErrNoStore):
		kind = "no_store"
	}
	msg := withoutPackagePrefixes(err.Error())
	if !m.asJSON && !jsonAsked(args) {
		fmt.Fprintln(m.Stderr, "aqlstore:", msg)
		return code
	}
	// With --json the error is a problem document on stdout, unless the
	// command printed its own JSON report of the failure (validate,
	// verify, a refused query's signed error document...).
	if stdout.n > 0 && pe == nil && code != exitInterrupted {
		fmt.Fprintln(m.Stderr, "aqlstore:", msg)
		return code
	}
	doc := problemDoc{Error: kind, Message: msg, Problems: []problem{}}
	if pe != nil && len(pe.problems) > 0 {
		doc.Problems = pe.problems
	}
	if err := m.printJSON(doc); err != nil {
		fmt.Fprintln(m.Stderr, "aqlstore:", msg)
	}
	return code
}

// problemDoc is how every command reports an error with --json: the
// shape of the resolver's error document (query.ErrorDocument) and of the
// server's problems, with the position in an input where there is one.
type problemDoc struct {
	Error    string    `json:"error"` // usage, interrupted, not_found, no_store, invalid_document, failed
	Message  string    `json:"message"`
	Problems []problem `json:"problems"`
}

// problem is one fault in a command's input: which document (from 1), the
// line and column in its source, the JSON Pointer in the document.
type problem struct {
	Source   string `json:"source,omitempty"`
	Document int    `json:"document,omitempty"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Pointer  string `json:"pointer,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// problemsError is a failure with a problem for each fault found.
type problemsError struct {
	code     string
	err      error
	problems []problem
}

func (e *problemsError) Error() string { return e.err.Error() }
func (e *problemsError) Unwrap() error { return e.err }

// jsonAsked reports whether args ask for --json before the command line
// failed to parse (the flag may not have been read).
func jsonAsked(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// countingWriter counts what a command writes to stdout.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (m *Main) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "aqlstore",
		Short:         "An embedded, indexed store for agent data, queried with AQL (RFC 0020)",
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	defaultDir := os.Getenv("AQLSTORE_DIR")
	if defaultDir == "" {
		defaultDir = "./aqlstore-data"
	}
	pf := root.PersistentFlags()
	pf.StringVar(&m.dir, "dir", defaultDir, "store directory (env AQLSTORE_DIR)")
	pf.StringVar(&m.asDID, "as", "", "act as this tenant DID (default: public)")
	pf.BoolVar(&m.asJSON, "json", false, "print JSON instead of text")
	pf.StringVar(&m.cache, "cache", "64MiB", "block cache of the store (\"256MiB\", \"4GiB\"): a bigger one serves more reads from memory (serve: a quarter of the memory when not given)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.PersistentPreRunE = m.preRun
	for _, c := range []interface{ command() *cobra.Command }{
		&initCommand{m: m}, &putCommand{m: m}, &getCommand{m: m}, &deleteCommand{m: m}, &lsCommand{m: m},
		&exportCommand{m: m}, &importCommand{m: m},
		&statsCommand{m: m}, &verifyCommand{m: m}, &compactCommand{m: m}, &genCommand{m: m}, &queryCommand{m: m},
		&validateCommand{m: m}, &keysCommand{m: m}, &verifyResponseCommand{m: m},
		&explainCommand{q: queryCommand{m: m}}, &reindexCommand{m: m}, &checkCommand{m: m}, &indexCommand{m: m},
		&serveCommand{m: m},
		&threadCommand{m: m}, &traceCommand{m: m},
		&grantCommand{m: m}, &grantCommand{m: m, revoke: true}, &grantsCommand{m: m},
		&pairlCommand{m: m},
		&aidpCommand{m: m},
		&execintentCommand{m: m},
	} {
		root.AddCommand(c.command())
	}
	return root
}

// withoutPackagePrefixes is the message a person reads (see canon).
func withoutPackagePrefixes(msg string) string { return canon.WithoutPackagePrefixes(msg) }

// parseKindFlag reads a --kind value; an unknown kind is a usage error
// listing the kinds, with the closest one when a typo is likely.
func parseKindFlag(s string) (canon.Kind, error) {
	if k, err := canon.ParseKind(s); err == nil {
		return k, nil
	}
	msg := fmt.Sprintf("--kind %q: unknown kind", s)
	if near := nearestKind(s); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	return "", usageError{fmt.Errorf("%s (known kinds: %s)", msg, kindList())}
}

// kindList is the kinds --kind takes, sorted, comma-separated.
func kindList() string {
	names := make([]string, 0, 16)
	for _, k := range allKinds() {
		names = append(names, string(k))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func allKinds() []canon.Kind { return append(canon.Kinds(), canon.MessageKinds()...) }

// nearestKind is the kind name within two edits of s (Levenshtein), or ""
// when none is that close.
func nearestKind(s string) canon.Kind {
	best, bestD := canon.Kind(""), 3
	for _, k := range allKinds() {
		if d := kindEditDistance(s, string(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// kindEditDistance is the Levenshtein distance between a and b, in bytes.
func kindEditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// args wraps a cobra positional-argument check so that its errors exit 2.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// preRun checks what every command shares before it runs: --as is a DID;
// and it marks the readingCommands, whose open then refuses a missing
// store rather than create one.
func (m *Main) preRun(cmd *cobra.Command, _ []string) error {
	if strings.TrimSpace(m.dir) == "" {
		return usageError{fmt.Errorf("--dir %q: give the store's directory (default ./aqlstore-data, or $AQLSTORE_DIR)", m.dir)}
	}
	if m.asDID != "" && m.asDID != store.Public {
		if err := canon.CheckDID(m.asDID); err != nil {
			return usageError{fmt.Errorf("--as: %w", err)}
		}
	}
	if !readingCommands[cmd.Name()] || cmd.Parent() != cmd.Root() {
		return nil
	}
	if f := cmd.Flags().Lookup("server"); f != nil && f.Value.String() != "" {
		return nil // asks a server, not the local store
	}
	m.readOnly = true
	return nil
}

// noStoreError says that --dir names no store, and how to make one.
func noStoreError(dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return &problemsError{code: "no_store", err: fmt.Errorf("no store at %s: it is a file, not a directory; give a store's directory with --dir (or $AQLSTORE_DIR)", dir)}
	}
	return &problemsError{code: "no_store", err: fmt.Errorf("no store at %s: check --dir (or $AQLSTORE_DIR); create one with `aqlstore --dir %s init` "+
		"or `aqlstore --dir %s put FILE`", dir, dir, dir)}
}

// open opens the store named by --dir, with its index: read-only for the
// readingCommands.
func (m *Main) open() (*store.Store, error) {
	opts, err := m.storeOptions()
	if err != nil {
		return nil, err
	}
	s, ix, err := index.Open(m.dir, &opts)
	if errors.Is(err, store.ErrNoStore) {
		return nil, noStoreError(m.dir)
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", m.dir, err)
	}
	m.ix = ix
	return s, nil
}

// storeOptions are the store options the global flags ask for.
func (m *Main) storeOptions() (store.Options, error) {
	// Pebble's background errors (a failed flush or compaction) reach no
	// caller; without a logger they would be lost.
	opts := store.Options{Logger: m.storeLog, ReadOnly: m.readOnly}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(m.Stderr, nil))
	}
	if m.cacheDefault > 0 {
		opts.CacheSize = m.cacheDefault
	} else if m.cache != "" {
		n, err := parseSize(m.cache)
		if err != nil {
			return opts, usageError{fmt.Errorf("--cache: %w", err)}
		}
		if n < 1<<20 {
			return opts, usageError{fmt.Errorf("--cache %s: give at least 1MiB", m.cache)}
		}
		opts.CacheSize = n
	}
	return opts, nil
}

// openDB opens the store named by --dir through the embedding API, as
// open does.
func (m *Main) openDB() (*aqlstore.DB, error) {
	opts, err := m.storeOptions()
	if err != nil {
		return nil, err
	}
	db, err := aqlstore.Open(m.dir, &aqlstore.Options{ReadOnly: m.readOnly, Store: opts})
	if errors.Is(err, store.ErrNoStore) {
		return nil, noStoreError(m.dir)
	}
	return db, err
}

// ctx returns ctx acting as the --as principal.
func (m *Main) ctx(ctx context.Context) context.Context {
	if m.asDID == "" {
		return ctx
	}
	return store.WithPrincipal(ctx, m.asDID)
}

// printJSON writes v as one line of JSON to stdout.
func (m *Main) printJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(m.Stdout, "%s\n", b)
	return err
}

func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (built without module support)"
	}
	return versionOf(info)
}

// versionOf says which source a binary was built from: the module version
// (a tag, or "(devel)" for a build in a checkout), the VCS revision and
// its time, whether the tree had uncommitted changes, and the Go version.
func versionOf(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	set := map[string]string{}
	for _, s := range info.Settings {
		set[s.Key] = s.Value
	}
	if rev := set["vcs.revision"]; rev != "" {
		v += " revision " + rev
		if t := set["vcs.time"]; t != "" {
			v += " (" + t + ")"
		}
		if set["vcs.modified"] == "true" {
			v += " with uncommitted changes"
		}
	} else {
		v += " (no VCS information: built outside a checkout, or with -buildvcs=false)"
	}
	if info.GoVersion != "" {
		v += ", " + info.GoVersion
	}
	return v
}
