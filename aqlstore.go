package aqlstore

import (
	"context"
	"fmt"
	"sync"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// The types a DB takes and returns are the store's and the query engine's;
// the aliases let an embedder name them from this package alone.
type (
	// Document is what Put stores: JSON or PAIRL text, its kind detected
	// unless given.
	Document = store.Document
	// Ref names a stored document: content id, kind, owner, number.
	Ref = store.Ref
	// StoredDoc is a stored document as a reader receives it.
	StoredDoc = store.StoredDoc
	// Kind names a document kind ("offer", "manifest", …).
	Kind = canon.Kind
	// ContentID is the sha256 of a document's canonical bytes.
	ContentID = canon.ContentID
	// Response is a signed IntentResponse.
	Response = query.Response
	// Plan is the index plan of an intent.
	Plan = query.Plan
	// ImportReport says what Import stored.
	ImportReport = store.ImportReport
)

// DB is an open store with its indexes. It is safe for concurrent use.
type DB struct {
	opts Options
	s    *store.Store
	ix   *index.Index

	mu     sync.Mutex   // guards signer
	signer *sign.Signer // created on first use (signerFor)

	// Pebble panics on a read after Close, so every call holds life for
	// reading and Close waits for the calls in flight. done ends the
	// subscriptions' waits.
	life   sync.RWMutex
	closed bool
	done   context.Context
	end    context.CancelFunc
}

// Open opens the store in dir with its indexes, creating it unless
// opts.ReadOnly, in a new or empty directory only (one that holds other
// files and no store is store.ErrInvalid). A nil opts means the defaults.
func Open(dir string, opts *Options) (*DB, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.EnsureDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.KeyFile == "" {
		o.KeyFile = DefaultKeyFile(dir)
	}
	so := o.Store
	so.ReadOnly = o.ReadOnly
	s, ix, err := index.Open(dir, &so)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	db := &DB{opts: o, s: s, ix: ix, signer: o.Signer}
	db.done, db.end = context.WithCancel(context.Background())
	return db, nil
}

// Close closes the DB after the calls in flight return; subscriptions end
// with ErrClosed, and every later call returns ErrClosed. Closing twice
// is harmless.
func (db *DB) Close() error {
	db.end()
	db.life.Lock()
	defer db.life.Unlock()
	if db.closed {
		return nil
	}
	db.closed = true
	return db.s.Close()
}

// enter starts a call: ErrClosed after Close, else the caller must call
// db.life.RUnlock when done.
func (db *DB) enter() error {
	db.life.RLock()
	if db.closed {
		db.life.RUnlock()
		return ErrClosed
	}
	return nil
}

// Store returns the underlying store, for what this package does not wrap
// (grants, verification, statistics). Its methods act as the principal
// of the context they are given: store.WithPrincipal, not Options.Principal.
func (db *DB) Store() *store.Store { return db.s }

// Put stores one document durably: when Put returns nil the document, its
// keys, its index postings and its receipt are on disk. Its owner is
// doc.Owner, else the context's principal. Putting identical content again
// returns the same Ref; different content under a used natural key is
// ErrConflict.
func (db *DB) Put(ctx context.Context, doc Document) (Ref, error) {
	ctx, err := db.context(ctx)
	if err != nil {
		return Ref{}, err
	}
	if err := db.enter(); err != nil {
		return Ref{}, err
	}
	defer db.life.RUnlock()
	return db.s.Put(ctx, doc)
}

// PutBatch stores docs in one atomic, durable commit: all of them or, on
// an error, none; a *store.BatchError names the failing document (Index
// from 0).
func (db *DB) PutBatch(ctx context.Context, docs []Document) ([]Ref, error) {
	ctx, err := db.context(ctx)
	if err != nil {
		return nil, err
	}
	if err := db.enter(); err != nil {
		return nil, err
	}
	defer db.life.RUnlock()
	return db.s.PutBatch(ctx, docs)
}

// Get returns the document with content id id that the context's
// principal may read (public, its own, or granted to it), else
// ErrNotFound.
func (db *DB) Get(ctx context.Context, id ContentID) (*StoredDoc, error) {
	ctx, err := db.context(ctx)
	if err != nil {
		return nil, err
	}
	if err := db.enter(); err != nil {
		return nil, err
	}
	defer db.life.RUnlock()
	return db.s.Get(ctx, Ref{ID: id})
}

// Lookup returns the document of kind whose natural key is key, as Get
// does: the reader's own before a public one.
func (db *DB) Lookup(ctx context.Context, kind Kind, key string) (*StoredDoc, error) {
	ctx, err := db.context(ctx)
	if err != nil {
		return nil, err
	}
	if err := db.enter(); err != nil {
		return nil, err
	}
	defer db.life.RUnlock()
	return db.s.Lookup(ctx, kind, key)
}

// Delete removes the context principal's document with content id id,
// durably and with a receipt. A document that does not exist or is
// another owner's is ErrNotFound.
func (db *DB) Delete(ctx context.Context, id ContentID) error {
	ctx, err := db.context(ctx)
	if err != nil {
		return err
	}
	if err := db.enter(); err != nil {
		return err
	}
	defer db.life.RUnlock()
	return db.s.Delete(ctx, Ref{ID: id})
}
