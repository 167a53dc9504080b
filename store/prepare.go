package store

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/aqlstore/aqlstore/canon"
)

// errHandMadeParsed refuses a Document.Parsed that ParseDocument did not
// make: Put would store its bytes, kind and natural key as given, unchecked.
var errHandMadeParsed = fmt.Errorf("%w: Document.Parsed was not made by ParseDocument or Store.Parse; give the document in Body instead", ErrInvalid)

// parsed returns doc parsed (Body, unless Parsed holds what ParseDocument
// made of it) with its signals override, checked, in place of the
// candidate shape's.
func (s *Store) parsed(doc Document) (*Parsed, error) {
	p := doc.Parsed
	switch {
	case p != nil && !p.made:
		return nil, errHandMadeParsed
	case p == nil:
		var err error
		if p, err = s.Parse(doc.Body, doc.Kind); err != nil {
			return nil, err
		}
	}
	if doc.Signals != nil {
		sig, err := doc.Signals.Canonical()
		if err != nil {
			return nil, fmt.Errorf("%w: Document.Signals: %w", ErrInvalid, err)
		}
		c := *p
		c.Signals = sig
		p = &c
	}
	return p, nil
}

// Prepared is a document made ready for the writer outside its lock:
// parsed, its owner checked, and its postings extracted when the store's
// Indexer is an IndexExtractor. Prepare makes one; PutBatch and Loader
// take them. A Prepared is bound to the store that prepared it.
type Prepared struct {
	s       *Store // the store that prepared it, nil for a dry run's
	p       *Parsed
	id      canon.ContentID // the content id of p's canonical bytes, hashed once here
	owner   string
	unbound UnboundPolicy
	x       any // the indexer's extraction, nil when there is none
}

// Parsed returns the parsed document.
func (pd *Prepared) Parsed() *Parsed { return pd.p }

// Owner returns the owner the document is stored under.
func (pd *Prepared) Owner() string { return pd.owner }

// Prepare parses doc (unless it is parsed already), settles its owner
// (ctx's principal when doc names none) and extracts its postings. It
// reads nothing of the store and is safe for concurrent use: importers
// prepare documents on every core and hand them to one writer.
func (s *Store) Prepare(ctx context.Context, doc Document) (*Prepared, error) {
	p, err := s.parsed(doc)
	if err != nil {
		return nil, err
	}
	pd := newPrepared(p, doc.Owner, doc.Unbound)
	pd.s = s
	if pd.owner == "" {
		pd.owner = Principal(ctx)
	}
	if err := checkOwner(pd.owner); err != nil {
		return nil, err
	}
	if xi, ok := s.opts.Indexer.(IndexExtractor); ok {
		x, err := xi.Extract(indexedDoc(&p.Document, pd.id, pd.owner))
		if err != nil {
			return nil, err
		}
		pd.x = x
	}
	return pd, nil
}

// newPrepared wraps p, hashing its canonical bytes: the writer and the
// indexer take the content id from the Prepared, not from a hash of
// their own.
func newPrepared(p *Parsed, owner string, unbound UnboundPolicy) *Prepared {
	return &Prepared{p: p, id: p.ID(), owner: owner, unbound: unbound}
}

// PrepareAll prepares docs on up to GOMAXPROCS workers, as PutBatch
// does before it takes the writer lock. An error is a *BatchError naming
// the first failing document.
func (s *Store) PrepareAll(ctx context.Context, docs []Document) ([]*Prepared, error) {
	out := make([]*Prepared, len(docs))
	errs := make([]error, len(docs))
	workers := min(runtime.GOMAXPROCS(0), (len(docs)+7)/8)
	if workers <= 1 {
		for i, d := range docs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if out[i], errs[i] = s.Prepare(ctx, d); errs[i] != nil {
				return nil, &BatchError{Index: i, Err: errs[i]}
			}
		}
		return out, nil
	}
	var wg sync.WaitGroup
	var next sync.Mutex
	i := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				j := i
				i++
				next.Unlock()
				if j >= len(docs) || ctx.Err() != nil {
					return
				}
				out[j], errs[j] = s.Prepare(ctx, docs[j])
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, &BatchError{Index: i, Err: err}
		}
	}
	return out, nil
}
