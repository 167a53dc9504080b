package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/pairl"
	"github.com/aqlstore/aqlstore/store"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

// putCommand imports documents. It is all or nothing for bad input: every
// document is parsed and checked for conflicts before the first is
// stored, so a bad document at line 90,000 leaves the store unchanged.
type putCommand struct {
	m          *Main
	kind       string
	owner      string
	batchDocs  int
	maxErrors  int
	quarantine bool
	msgOpts    store.MessageOptions
	strict     bool
	cpuProf    string
	names      map[string]string // spooled temp file → "stdin", for messages
	oneScan    bool              // eachDoc reads with readLines: load's first try
	parsed     []parsedDoc       // every document, parsed once by check; nil when over maxParsedBytes
}

// parsedDoc is a document check parsed, handed on to store.
type parsedDoc struct {
	where *rawDoc
	p     *store.Parsed
}

// maxParsedBytes bounds the parsed documents put keeps between check and
// store. Inputs within it are parsed once; a larger input is read and
// parsed again when stored, so that memory stays bounded.
const maxParsedBytes = 256 << 20

func (c *putCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "put FILE|DIR|- ...",
		Short: "Store documents: JSON, a JSON array, NDJSON, OAP candidates, AIDP and ExecutionIntent JSON, PAIRL text",
		Args:  args(cobra.MinimumNArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a) },
	}
	f := cmd.Flags()
	f.StringVar(&c.kind, "kind", "", "document `KIND`, one of "+kindList()+" (default: detect from the document)")
	f.StringVar(&c.owner, "owner", "", "owner tenant DID (default: --as, else public)")
	f.IntVar(&c.batchDocs, "batch", 1000, "documents per synced commit")
	f.IntVar(&c.maxErrors, "max-errors", 20, "stop listing bad documents after this many")
	f.BoolVar(&c.quarantine, "quarantine", false, "store AIDP observations whose envelope is not stored, flagged quarantined (default: reject them)")
	f.BoolVar(&c.strict, "strict", false, "validate PAIRL in strict mode")
	f.BoolVar(&c.msgOpts.StrictRefs, "strict-refs", false, "PAIRL @parent and @deps must resolve in the store (V4)")
	f.BoolVar(&c.msgOpts.AllowUnsignedObservations, "allow-unsigned", false, "accept AIDP observations without proof")
	f.StringVar(&c.cpuProf, "cpuprofile", "", "write a CPU profile of the put to this file (go tool pprof)")
	return cmd
}

func (c *putCommand) run(ctx context.Context, args []string) error {
	if c.kind != "" {
		if _, err := parseKindFlag(c.kind); err != nil {
			return err
		}
	}
	if c.batchDocs < 1 {
		return usageError{fmt.Errorf("--batch must be at least 1")}
	}
	if c.maxErrors < 1 {
		return usageError{fmt.Errorf("--max-errors %d: give at least 1 (a put with bad documents stores none of them and lists this many)", c.maxErrors)}
	}
	if c.strict {
		c.msgOpts.PAIRLMode = pairl.Strict
	}
	stop, err := startCPUProfile(c.cpuProf)
	if err != nil {
		return err
	}
	defer stop()
	files, cleanup, err := c.spoolStdin(args)
	defer cleanup()
	if err != nil {
		return err
	}
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	ctx = c.m.ctx(ctx)
	owner := c.owner
	if owner == "" {
		owner = store.Principal(ctx)
	}
	if err := c.load(ctx, s, files, owner); !errors.Is(err, errHasMessages) {
		return err
	}
	total, err := c.check(ctx, s, files, owner)
	if err != nil {
		return err
	}
	return c.store(ctx, s, files, owner, total)
}

// parse parses one document with the command's kind and message options.
func (c *putCommand) parse(s *store.Store, d *rawDoc) (*store.Parsed, error) {
	lim := s.Limits()
	return store.ParseDocument(d.body, canon.Kind(c.kind), &lim, &c.msgOpts)
}

// document is what put hands the store for p.
func (c *putCommand) document(p *store.Parsed, owner string) store.Document {
	unbound := store.RejectUnbound
	if c.quarantine {
		unbound = store.QuarantineUnbound
	}
	return store.Document{Parsed: p, Owner: owner, Unbound: unbound}
}

// spoolStdin copies standard input to a temporary file, because put may
// read its input twice (check, then store, when it is over maxParsedBytes).
func (c *putCommand) spoolStdin(args []string) ([]string, func(), error) {
	files, err := inputFiles(args)
	cleanup := func() {}
	if err != nil { // a missing or unreadable input fails the command (exit 1), as for every command
		return nil, cleanup, err
	}
	for i, f := range files {
		if f != "-" {
			continue
		}
		tmp, err := os.CreateTemp("", "aqlstore-stdin-*.json")
		if err != nil {
			return nil, cleanup, err
		}
		cleanup = func() { os.Remove(tmp.Name()) }
		if _, err := io.Copy(tmp, c.m.Stdin); err != nil {
			tmp.Close()
			return nil, cleanup, fmt.Errorf("read stdin: %w", err)
		}
		if err := tmp.Close(); err != nil {
			return nil, cleanup, err
		}
		files[i] = tmp.Name()
		c.names = map[string]string{tmp.Name(): "stdin"}
	}
	return files, cleanup, nil
}

// eachDoc reads every document of files in order.
func (c *putCommand) eachDoc(files []string, fn func(*rawDoc) error) error {
	displayName := func(file string) string {
		if n, ok := c.names[file]; ok {
			return n
		}
		return file
	}
	for _, file := range files {
		if text, ok, err := pairlFile(file); err != nil {
			return err
		} else if ok {
			if err := fn(&rawDoc{source: displayName(file), line: 1, body: text}); err != nil {
				return err
			}
			continue
		}
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		read := readDocs
		if c.oneScan {
			read = readLines
		}
		n, err := read(f, displayName(file), fn)
		f.Close()
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("%s: no JSON documents found", displayName(file))
		}
	}
	return nil
}

// pairlFile returns the text of file when it holds a PAIRL message (one
// per file): its name ends in .pairl, or its first non-blank byte is '@'.
func pairlFile(file string) ([]byte, bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, false, err
	}
	if !strings.EqualFold(filepath.Ext(file), ".pairl") && !canon.LooksLikePAIRL(head[:n]) {
		return nil, false, nil
	}
	rest, err := io.ReadAll(f)
	if err != nil {
		return nil, false, err
	}
	return append(head[:n], rest...), true, nil
}

// check parses every document and looks for conflicts, in the input and
// with the store, reporting every bad document (up to --max-errors).
func (c *putCommand) check(ctx context.Context, s *store.Store, files []string, owner string) (int, error) {
	seen := map[[16]byte]canon.ContentID{} // (kind, owner, natural key) → content id
	bad, total, kept := 0, 0, 0
	bar := c.progress(-1, "checking")
	var problems []problem
	report := func(d *rawDoc, err error) {
		bad++
		if bad > c.maxErrors {
			return
		}
		err = lineOf(d, err)
		problems = append(problems, docProblem(d, err))
		if !c.m.asJSON {
			c.barLine(bar)
			fmt.Fprintf(c.m.Stderr, "%s: %s\n", d.where(), withoutPackagePrefixes(err.Error()))
		}
	}
	// A dry run checks each document against the store and the documents
	// before it: an observation after its envelope, a reply after its
	// parent, a replayed envelope_id within the input.
	dry := s.DryRun(ctx)
	defer dry.Close()
	c.parsed = []parsedDoc{}
	err := c.eachDoc(files, func(d *rawDoc) error {
		if ctx.Err() != nil {
			return interruptedError{"nothing was stored"}
		}
		total++
		_ = bar.Add(1)
		if d.err != nil {
			report(d, d.err)
			return nil
		}
		p, err := c.parse(s, d)
		if err != nil {
			report(d, err)
			return nil
		}
		c.warn(d, roundedNumbers(d, p))
		if err := checkSeen(seen, &p.Document, owner); err != nil {
			report(d, err)
		} else if _, err := dry.Put(c.document(p, owner)); err != nil {
			report(d, err)
		}
		if kept += len(p.Canonical) + len(p.View); c.parsed != nil && kept <= maxParsedBytes {
			c.parsed = append(c.parsed, parsedDoc{where: d, p: p})
		} else {
			c.parsed = nil
		}
		return nil
	})
	_ = bar.Finish()
	c.barLine(bar)
	if err != nil {
		return total, err
	}
	if bad > 0 {
		return total, c.rejected(bad, total, problems)
	}
	return total, nil
}

// docProblem is err, the fault of document d, as a problem: its number,
// line, column and pointer where err has them.
func docProblem(d *rawDoc, err error) problem {
	p := problem{Source: d.source, Document: d.index + 1, Line: d.line, Code: "invalid_document",
		Message: withoutPackagePrefixes(err.Error())}
	var dse *docSyntaxError
	var cse *canon.SyntaxError
	var ce *store.ConflictError
	switch {
	case errors.As(err, &dse):
		p.Line, p.Column, p.Pointer, p.Code = dse.Line, dse.Column, dse.Pointer, "invalid_json"
	case errors.As(err, &cse):
		p.Line, p.Column, p.Pointer, p.Code = cse.Line, cse.Column, cse.Pointer, "invalid_json"
	case errors.As(err, &ce):
		p.Code = "conflict"
	}
	return p
}

// roundedNumbers returns the numbers of d, parsed as p, that are stored
// rounded to the nearest double (RFC 8785): the document is kept, but
// not every digit of it.
func roundedNumbers(d *rawDoc, p *store.Parsed) []canon.Rounding {
	if p.View != nil { // PAIRL text: its numbers are the view's own
		return nil
	}
	return p.Document.Rounded(d.body)
}

// warn says which numbers of d are stored rounded.
func (c *putCommand) warn(d *rawDoc, rounded []canon.Rounding) {
	for _, r := range rounded {
		fmt.Fprintf(c.m.Stderr, "%s: warning: %s\n", d.where(), r)
	}
}

// lineOf rewrites a document-relative syntax error's line to the line in
// the file.
func lineOf(d *rawDoc, err error) error {
	if se, ok := err.(*canon.SyntaxError); ok {
		c := *se
		c.Line += d.line - 1
		return &c
	}
	return err
}

func checkSeen(seen map[[16]byte]canon.ContentID, p *canon.Document, owner string) error {
	if p.NaturalKey == "" {
		return nil
	}
	h := sha256.Sum256([]byte(string(p.Kind) + "\x00" + owner + "\x00" + p.NaturalKey))
	var k [16]byte
	copy(k[:], h[:])
	id := p.ID()
	if prev, ok := seen[k]; ok && prev != id {
		return &store.ConflictError{Kind: string(p.Kind), NaturalKey: p.NaturalKey, Existing: prev.String(), Incoming: id.String()}
	}
	seen[k] = id
	return nil
}

// store commits the checked documents in batches, with a progress bar
// when stderr is a terminal. Cancelling ctx (Ctrl-C) stops it between
// batches: the batch in flight is written whole, none after it.
func (c *putCommand) store(ctx context.Context, s *store.Store, files []string, owner string, total int) error {
	bar := c.progress(total, "storing")
	start := time.Now()
	var batch []store.Document
	var where []*rawDoc
	stored, created := 0, 0
	stop := interruptedError{}
	flush := func() error {
		refs, err := s.PutBatch(context.WithoutCancel(ctx), batch)
		if err != nil {
			if be, ok := err.(*store.BatchError); ok {
				err = fmt.Errorf("%s: %w", where[be.Index].where(), be.Err)
			}
			return fmt.Errorf("%w (%d documents stored before this batch; put is idempotent, so run it again once fixed)", err, stored)
		}
		stored += len(refs)
		for _, r := range refs {
			if r.Created {
				created++
			}
		}
		if r := rate(stored, time.Since(start)); r != "" {
			bar.Describe("storing (" + r + ")")
		}
		_ = bar.Add(len(refs))
		batch, where = batch[:0], where[:0]
		return c.printRefs(refs)
	}
	add := func(d *rawDoc, p *store.Parsed) error {
		if ctx.Err() != nil {
			return stop
		}
		batch = append(batch, c.document(p, owner))
		where = append(where, d)
		if len(batch) >= c.batchDocs {
			return flush()
		}
		return nil
	}
	var err error
	if c.parsed != nil {
		for _, pd := range c.parsed {
			if err = add(pd.where, pd.p); err != nil {
				break
			}
		}
	} else {
		err = c.eachDoc(files, func(d *rawDoc) error {
			if d.err != nil { // the check passed it: the file changed since
				return fmt.Errorf("%s: %w", d.where(), d.err)
			}
			p, err := c.parse(s, d)
			if err != nil {
				return fmt.Errorf("%s: %w", d.where(), lineOf(d, err))
			}
			return add(d, p)
		})
	}
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	if err == stop {
		_ = bar.Exit() // keep the bar where it stopped, not at 100%
		if c.m.StderrIsTerminal {
			fmt.Fprintln(c.m.Stderr)
		}
		return interruptedError{fmt.Sprintf("%d of %d documents stored, in whole batches of %d; "+
			"put is idempotent: run it again to store the rest", stored, total, c.batchDocs)}
	}
	_ = bar.Finish()
	c.barLine(bar)
	if err != nil {
		return err
	}
	el := time.Since(start)
	r := rate(stored, el)
	if r != "" {
		r = " (" + r + ")"
	}
	fmt.Fprintf(c.m.Stderr, "stored %d documents in %s%s: %d new, %d already stored\n",
		stored, el.Round(time.Millisecond), r, created, stored-created)
	return nil
}

// rate is "N docs/s" for n documents in el, or "" while el is too short
// (under 100ms) or n too small (under 10) for the rate to mean anything:
// one batch stored in microseconds is no rate.
func rate(n int, el time.Duration) string {
	if n < 10 || el < 100*time.Millisecond {
		return ""
	}
	return fmt.Sprintf("%.0f docs/s", float64(n)/el.Seconds())
}

// progress is a bar on a terminal for total documents (-1: not known in
// advance), silent elsewhere. It shows the count; the rate is put in its
// description by the caller once rate has one.
//
// The spinner of a bar of unknown length turns only as the bar is
// added to: progressbar's own ticker goroutine (its default 100 ms
// interval) reads the bar's start time unlocked while Add writes it, a
// data race the race detector reports in every test of a load.
func (c *putCommand) progress(total int, what string) *progressbar.ProgressBar {
	if !c.m.StderrIsTerminal {
		return progressbar.NewOptions(total, progressbar.OptionSetVisibility(false))
	}
	return progressbar.NewOptions(total, progressbar.OptionSetWriter(c.m.Stderr),
		progressbar.OptionSetDescription(what), progressbar.OptionShowCount(),
		progressbar.OptionSetItsString("docs"), progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetSpinnerChangeInterval(0))
}

// barLine makes what is printed next start a line of its own on a
// terminal: after a finished bar, a newline keeps the bar shown above it;
// during one, the bar is cleared and drawn again at its next step.
func (c *putCommand) barLine(bar *progressbar.ProgressBar) {
	if !c.m.StderrIsTerminal {
		return
	}
	if bar.IsFinished() {
		fmt.Fprintln(c.m.Stderr)
		return
	}
	_ = bar.Clear()
}

func (c *putCommand) printRefs(refs []store.Ref) error {
	if !c.m.asJSON {
		return nil
	}
	for _, r := range refs {
		out := refJSON(r)
		out["created"] = r.Created
		if err := c.m.printJSON(out); err != nil {
			return err
		}
	}
	return nil
}

// refJSON is the JSON form of a Ref the CLI prints.
func refJSON(r store.Ref) map[string]any {
	return map[string]any{"id": r.ID.String(), "kind": r.Kind, "owner": r.Owner, "num": r.Num}
}
