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
	"strings"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
	"github.com/spf13/cobra"
)

// Exit codes: 0 success; 1 the command failed (bad input, a conflict, a
// store that does not verify); 2 the command line itself is wrong.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// Main is the CLI: its streams and the flags every command shares.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// StderrIsTerminal enables progress bars.
	StderrIsTerminal bool

	dir    string // --dir
	asDID  string // --as: the principal reads and writes act as
	asJSON bool   // --json
	cache  string // --cache, a size

	ix       *index.Index // the open store's index, set by open
	storeLog *slog.Logger // where the store reports background errors; nil: text on Stderr
}

// NewMain returns a Main on the process's standard streams.
func NewMain() *Main {
	return &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, StderrIsTerminal: isTerminal(os.Stderr)}
}

// usageError marks errors in the command line (exit code 2).
type usageError struct{ error }

// Run runs the command line args and returns the process exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	root := m.rootCommand()
	root.SetArgs(args)
	root.SetIn(m.Stdin)
	root.SetOut(m.Stdout)
	root.SetErr(m.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(m.Stderr, "aqlstore:", err)
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") {
		return exitUsage
	}
	return exitFail
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
	pf.StringVar(&m.cache, "cache", "64MiB", "block cache of the store (\"256MiB\", \"4GiB\"): a bigger one serves more reads from memory")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	for _, c := range []interface{ command() *cobra.Command }{
		&initCommand{m: m}, &putCommand{m: m}, &getCommand{m: m}, &lsCommand{m: m},
		&statsCommand{m: m}, &verifyCommand{m: m}, &compactCommand{m: m}, &genCommand{m: m}, &queryCommand{m: m},
		&validateCommand{m: m}, &keysCommand{m: m}, &verifyResponseCommand{m: m},
		&explainCommand{q: queryCommand{m: m}}, &reindexCommand{m: m}, &checkCommand{m: m},
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

// args wraps a cobra positional-argument check so that its errors exit 2.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// open opens the store named by --dir, with its index.
func (m *Main) open() (*store.Store, error) {
	// Pebble's background errors (a failed flush or compaction) reach no
	// caller; without a logger they would be lost.
	opts := store.Options{Logger: m.storeLog}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(m.Stderr, nil))
	}
	if m.cache != "" {
		n, err := parseSize(m.cache)
		if err != nil {
			return nil, usageError{fmt.Errorf("--cache: %w", err)}
		}
		if n < 1<<20 {
			return nil, usageError{fmt.Errorf("--cache %s: give at least 1MiB", m.cache)}
		}
		opts.CacheSize = n
	}
	s, ix, err := index.Open(m.dir, &opts)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", m.dir, err)
	}
	m.ix = ix
	return s, nil
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
	if !ok || info.Main.Version == "" {
		return "devel"
	}
	return info.Main.Version
}
