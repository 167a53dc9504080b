package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// errHasMessages stops a load at the first message kind: put then checks
// and stores the input as a sequence of batches (check, store), where
// the message rules (replays, envelopes, threads) are kept.
var errHasMessages = errors.New("the input holds message kinds")

// preparedDoc is a document of the input as a worker left it.
type preparedDoc struct {
	d   *rawDoc
	pd  *store.Prepared
	err error
	// rounded: the numbers of d stored rounded, found by the worker
	// (a scan of the whole body, kept off the goroutine that adds).
	rounded []canon.Rounding
}

// prepareChunk is how many documents a worker takes at a time.
const prepareChunk = 64

// prepareInput reads the documents of files and prepares them (parse,
// canonicalize, extract postings) on GOMAXPROCS workers, handing them to
// fn in input order from the calling goroutine. fn's error stops the
// reading and is returned.
func (c *putCommand) prepareInput(ctx context.Context, s *store.Store, files []string, owner string,
	fn func(*preparedDoc) error) error {
	type chunk struct {
		seq  int
		docs []preparedDoc
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	jobs := make(chan chunk, workers)
	results := make(chan chunk, 2*workers)
	stop := make(chan struct{})
	var readErr error
	go func() { // the reader
		defer close(jobs)
		seq, cur := 0, make([]preparedDoc, 0, prepareChunk)
		send := func() bool {
			select {
			case jobs <- chunk{seq, cur}:
				seq, cur = seq+1, make([]preparedDoc, 0, prepareChunk)
				return true
			case <-stop:
				return false
			}
		}
		errStop := errors.New("stopped")
		err := c.eachDoc(files, func(d *rawDoc) error {
			if cur = append(cur, preparedDoc{d: d}); len(cur) == prepareChunk && !send() {
				return errStop
			}
			return nil
		})
		if err == nil && len(cur) > 0 {
			send()
		}
		if err != errStop {
			readErr = err
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ch := range jobs {
				for i := range ch.docs {
					c.prepareDoc(ctx, s, owner, &ch.docs[i])
				}
				select {
				case results <- ch:
				case <-stop:
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()
	pending := map[int][]preparedDoc{}
	next := 0
	var err error
	for ch := range results {
		if err != nil {
			continue
		}
		pending[ch.seq] = ch.docs
		for docs, ok := pending[next]; ok; docs, ok = pending[next] {
			delete(pending, next)
			next++
			for i := range docs {
				if err = fn(&docs[i]); err != nil {
					close(stop)
					break
				}
			}
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		return err
	}
	return readErr
}

// prepareDoc parses and prepares one document, leaving the fault in
// p.err.
func (c *putCommand) prepareDoc(ctx context.Context, s *store.Store, owner string, p *preparedDoc) {
	if p.d.err != nil {
		p.err = p.d.err
		return
	}
	parsed, err := c.parse(s, p.d)
	if err != nil {
		p.err = lineOf(p.d, err)
		return
	}
	p.rounded = roundedNumbers(p.d, parsed)
	p.pd, p.err = s.Prepare(ctx, c.document(parsed, owner))
}

// load stores an input without message kinds through a store.Loader:
// every document is read, parsed and checked once, and the whole input
// is ingested in one atomic step once every document passed, or nothing
// is stored. It returns errHasMessages, having stored nothing, at the
// first message kind.
func (c *putCommand) load(ctx context.Context, s *store.Store, files []string, owner string) error {
	c.oneScan = true
	err := c.loadOnce(ctx, s, files, owner)
	c.oneScan = false
	if errors.Is(err, errExactInput) || errors.Is(err, errNotLines) {
		// Nothing was stored: read the input again, as readDocs does, to
		// say exactly where each fault is.
		err = c.loadOnce(ctx, s, files, owner)
	}
	return err
}

// errExactInput stops a load that read a document at fault with
// readLines.
var errExactInput = errors.New("a document read by lines is at fault")

// loadOnce is load, reading the input with readLines when c.oneScan is
// set.
func (c *putCommand) loadOnce(ctx context.Context, s *store.Store, files []string, owner string) error {
	l, err := s.NewLoader(ctx, nil)
	if err != nil {
		return err
	}
	defer l.Abort()
	bar := c.progress(-1, "loading")
	start := time.Now()
	var (
		problems []problem
		lines    []string
		refs     []store.Ref
		bad      int
		total    int
	)
	report := func(d *rawDoc, err error) {
		if bad++; bad > c.maxErrors {
			return
		}
		problems = append(problems, docProblem(d, err))
		lines = append(lines, fmt.Sprintf("%s: %s", d.where(), withoutPackagePrefixes(err.Error())))
	}
	err = c.prepareInput(ctx, s, files, owner, func(p *preparedDoc) error {
		if ctx.Err() != nil {
			return interruptedError{"nothing was stored"}
		}
		total++
		if total%1024 == 0 {
			_ = bar.Add(1024)
			if r := rate(total, time.Since(start)); r != "" {
				bar.Describe("loading (" + r + ")")
			}
		}
		if p.err != nil && p.d.fast {
			return errExactInput
		}
		if p.err != nil {
			report(p.d, p.err)
			return nil
		}
		if pp := p.pd.Parsed(); pp.AIDP != nil || pp.PAIRL != nil || pp.Exec != nil {
			return errHasMessages
		}
		c.warn(p.d, p.rounded)
		ref, err := l.Add(p.pd)
		if err != nil {
			report(p.d, err)
			return nil
		}
		if c.m.asJSON {
			refs = append(refs, ref)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.barLine(bar)
	for _, line := range lines {
		if !c.m.asJSON {
			fmt.Fprintln(c.m.Stderr, line)
		}
	}
	if bad > 0 {
		return c.rejected(bad, total, problems)
	}
	if ctx.Err() != nil {
		return interruptedError{"nothing was stored"}
	}
	if err := l.Commit(); err != nil {
		return fmt.Errorf("%w (nothing was stored; put is idempotent, so run it again once fixed)", err)
	}
	_ = bar.Finish()
	c.barLine(bar)
	if err := c.printRefs(refs); err != nil {
		return err
	}
	el := time.Since(start)
	r := rate(total, el)
	if r != "" {
		r = " (" + r + ")"
	}
	fmt.Fprintf(c.m.Stderr, "stored %d documents in %s%s: %d new, %d already stored\n",
		total, el.Round(time.Millisecond), r, l.Added(), total-l.Added())
	return nil
}

// rejected is the error of an input with bad documents, of which problems
// lists the first --max-errors.
func (c *putCommand) rejected(bad, total int, problems []problem) error {
	more := ""
	if bad > c.maxErrors {
		more = fmt.Sprintf("… and %d more bad documents (--max-errors %d lists more)", bad-c.maxErrors, c.maxErrors)
		if !c.m.asJSON {
			fmt.Fprintln(c.m.Stderr, more)
			more = ""
		} else { // the problems list stops at --max-errors: the message counts the rest
			more = "; " + strings.TrimPrefix(more, "… ")
		}
	}
	return &problemsError{code: "invalid_document", problems: problems,
		err: fmt.Errorf("%d of %d documents rejected%s; nothing was stored (fix them and run put again)", bad, total, more)}
}
