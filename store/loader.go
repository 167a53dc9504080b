package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
)

// Loader stores a large input as sstables ingested into the store in one
// atomic step, instead of a batch per thousand documents: no WAL, no
// memtable, and posting lists written whole rather than as a merge
// operand per key per batch, so nothing is left for compaction to merge
// and a store opens at once after a load.
//
// Documents are checked as Put checks them, against the committed store
// (point reads) and the load's earlier documents (kept in memory), and
// get their keys, receipts and postings from the same code as Put. The
// load builds runs in memory, each sorted once and spilled to files in
// a temporary directory inside the store (its records, column entries
// and receipts, which later runs' follow, straight into sstables there);
// Commit merges the runs, ORs
// each posting list with the committed one (a merge join over the
// store's index keys), writes non-overlapping sstables and ingests them
// with the new next number and chain head. Nothing is visible before
// Commit returns; a load killed at any point leaves the store as it was,
// and its temporary files are removed by the next Open or load.
//
// A Loader holds the store's writer lock from NewLoader to Commit or
// Abort: other mutations wait, and Close, which cannot wait for a load
// nobody may end, aborts it. Message kinds (AIDP, PAIRL,
// ExecutionIntent), whose rules read and write keys of their own, are
// refused with ErrLoaderMessage: store them with PutBatch. Its methods
// are safe for concurrent use but take turns: prepare documents on many
// goroutines (Store.Prepare) and Add them from one.
type Loader struct {
	mu sync.Mutex // held by every method, and by Close's abort
	s  *Store
	m  *mutation
	ix IndexExtractor // nil when the store has no indexer
	// derive, when the indexer derives a family, gets the keys of the
	// family derived from as the merge writes them (mergeRange).
	derive IndexDeriver
	dir    string    // the temporary directory of the runs
	run    *loadRun  // the run being built
	runs   []spilled // spilled runs, in order
	// spilling gets the result of the run being spilled (spill); nil
	// when none is.
	spilling chan spillResult
	asc      map[int]*ascending // the ascending ranges' tables of the spilled runs (ascendingRange)
	mem      *loadMem
	opts     LoadOptions
	bad      error // the first failed Add: Commit refuses
	added    int
	ended    bool
	// closed: Close aborted the load.
	closed bool
}

// loadTempDir is the Loader's directory inside the store.
const loadTempDir = "load.tmp"

// LoadOptions bound a Loader's runs; nil or zero fields mean the
// defaults.
type LoadOptions struct {
	// RunBytes spills a run once its documents' keys and values pass it
	// (default 64 MiB).
	RunBytes int
	// RunDocs spills a run once it holds this many documents, whose
	// postings grow with their distinct values (default 25,000).
	RunDocs int
}

// The default run bounds. A run's posting sets are hash tables read at
// random, a cache miss per posting; smaller runs keep them smaller at the
// cost of more runs to merge. Putting 1,000,000 manifests (aqlstore put,
// this project's 2-core machine, five alternated comparisons) took 1 to 6
// fewer user CPU-s with 25,000 documents and 64 MiB than with 100,000 and
// 256 MiB, and 1.8 GB of peak memory instead of 2.5; 10,000 and 32 MiB
// took 1 to 2 more than the latter, 50,000 and 128 MiB fell between.
const (
	defaultRunBytes = 64 << 20
	defaultRunDocs  = 25_000
)

func (o *LoadOptions) withDefaults() LoadOptions {
	var out LoadOptions
	if o != nil {
		out = *o
	}
	if out.RunBytes <= 0 {
		out.RunBytes = defaultRunBytes
	}
	if out.RunDocs <= 0 {
		out.RunDocs = defaultRunDocs
	}
	return out
}

// NewLoader starts a load acting as ctx's principal, taking the writer
// lock. The store's Indexer, when it has one, must be an
// IndexExtractor. opts may be nil. End the load with Commit or Abort.
func (s *Store) NewLoader(ctx context.Context, opts *LoadOptions) (*Loader, error) {
	var xi IndexExtractor
	if ix := s.opts.Indexer; ix != nil {
		var ok bool
		if xi, ok = ix.(IndexExtractor); !ok {
			return nil, fmt.Errorf("%w: the store's indexer cannot load in bulk (no IndexExtractor)", ErrInvalid)
		}
	}
	s.mu.Lock()
	if err := s.checkOpen(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if err := s.kv.fault.refusal(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	l := &Loader{s: s, ix: xi, opts: opts.withDefaults(), dir: filepath.Join(s.dir, loadTempDir), mem: newLoadMem(),
		asc: map[int]*ascending{}}
	if err := l.removeTemp(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if err := s.kv.fs().MkdirAll(l.dir, 0o755); err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("store: load: %w", err)
	}
	l.run = newLoadRun()
	if d, ok := xi.(IndexDeriver); ok {
		l.derive = d
		d.StartLoad()
	}
	l.m = &mutation{s: s, w: l, principal: Principal(ctx), nextNum: s.nextNum, head: s.head}
	// Close raises closing, then aborts the load it finds here; a load
	// begun as Close looks sees closing itself.
	s.load.Store(l)
	if s.closing.Load() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.abort()
		return nil, ErrClosed
	}
	return l, nil
}

// Add checks the prepared document and adds it to the load, returning
// the Ref it will have once Commit returns (Created false when the same
// owner already stores the same content). An error names what is wrong
// with this document, which is not part of the load: a conflict, a
// replay, a message kind. The load may go on without it (put, which
// stores nothing of an input with a bad document, calls Abort). Only an
// error met after the document's keys were written, which no check
// foresees (a failed read), makes Commit fail.
func (l *Loader) Add(pd *Prepared) (Ref, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return Ref{}, l.endedError()
	}
	if p := pd.p; p.AIDP != nil || p.PAIRL != nil || p.Exec != nil {
		return Ref{}, fmt.Errorf("%w: %s", ErrLoaderMessage, p.Kind)
	}
	if pd.s != l.s {
		return Ref{}, fmt.Errorf("%w: the document was prepared by another store", ErrInvalid)
	}
	before := l.m.nextNum
	ref, err := l.m.put(pd)
	if err != nil {
		// put checks a document before it writes any of its keys, and
		// numbers it just before the first write: a document refused
		// with its number unused left nothing in the load, which may
		// go on without it.
		if l.m.nextNum != before && l.bad == nil {
			l.bad = err
		}
		return Ref{}, err
	}
	if ref.Created {
		l.added++
		l.run.docs++
		if l.run.bytes >= l.opts.RunBytes || l.run.docs >= l.opts.RunDocs {
			if err := l.spill(); err != nil {
				l.bad = err
				return Ref{}, err
			}
		}
	}
	return ref, nil
}

// get implements docSink: the load's own keys, then the committed store.
func (l *Loader) get(key, dst []byte) ([]byte, bool, error) {
	if v, ok := l.mem.get(key); ok {
		return append(dst, v...), true, nil
	}
	return l.s.kv.get(key, dst)
}

// set implements docSink: the key joins the run, and the keys later
// documents' checks read are remembered.
func (l *Loader) set(key, value []byte) error {
	switch key[0] {
	case prefixID, prefixNatural, prefixRefs:
		l.mem.set(key, value)
	case prefixDoc:
		// Records come through setRecord, which knows where the body
		// starts; one written here would be missing from the checks.
		return fmt.Errorf("store: record key %x written to a load without setRecord", key)
	}
	l.run.set(key, value)
	return nil
}

// setRecord implements docSink: the record joins the run, and is
// remembered for later documents' checks, which read records (kind,
// owner, signals), never bodies, with its inline body cut to the codec
// byte, or memory would hold the whole input.
func (l *Loader) setRecord(key, value []byte, head int) error {
	l.mem.set(key, value[:min(len(value), head+1)])
	l.run.set(key, value)
	return nil
}

// spill hands the run being built, with its postings, to a goroutine
// that sorts it and writes it to files while the next run is built:
// Add used to wait for it (12.8 of the 102 CPU-s in a profile of a
// 1,000,000-manifest put), and the prepare workers with it. One run spills at a time: a
// spill waits for the one before it.
func (l *Loader) spill() error {
	if err := l.flushIndexRun(); err != nil {
		return err
	}
	if err := l.waitSpill(); err != nil {
		return err
	}
	path := filepath.Join(l.dir, fmt.Sprintf("run-%06d", len(l.runs)+1))
	r, n := l.run, len(l.run.ents)
	done := make(chan spillResult, 1)
	l.spilling = done
	go func() {
		sp, err := l.spillRun(r, path)
		done <- spillResult{sp, err}
	}()
	l.run = newLoadRunLike(n)
	return nil
}

// spillResult is what a run's spill did.
type spillResult struct {
	sp  spilled
	err error
}

// waitSpill waits for the run being spilled, if one is, and adds it to
// the spilled runs.
func (l *Loader) waitSpill() error {
	if l.spilling == nil {
		return nil
	}
	res := <-l.spilling
	l.spilling = nil
	if res.err != nil {
		return fmt.Errorf("store: load: spill run: %w", res.err)
	}
	res.sp.apply(l)
	l.runs = append(l.runs, res.sp)
	return nil
}

func (l *Loader) flushIndexRun() error {
	if l.ix == nil {
		return nil
	}
	if err := l.ix.FlushRun(&IndexWriter{run: l.run}); err != nil {
		return fmt.Errorf("store: index: %w", err)
	}
	return nil
}

// Added is the number of documents the load creates.
func (l *Loader) Added() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.added
}

// endedError is the error of a call after the load ended.
func (l *Loader) endedError() error {
	if l.closed {
		return fmt.Errorf("%w: the load was aborted by Close; nothing of it is stored", ErrClosed)
	}
	return fmt.Errorf("%w: the load has ended", ErrInvalid)
}

// Commit writes the load's sstables and ingests them with the new next
// number and chain head, atomically and durably, then releases the
// writer lock. It fails, storing nothing, when an Add failed.
func (l *Loader) Commit() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return l.endedError()
	}
	if l.bad != nil {
		err := fmt.Errorf("%w: a document of the load was refused: %v", ErrInvalid, l.bad)
		l.abort()
		return err
	}
	if l.added == 0 {
		l.abort()
		return nil
	}
	if err := l.commit(); err != nil {
		l.abort()
		return err
	}
	s := l.s
	if l.ix != nil {
		l.ix.Done(true)
	}
	s.nextNum, s.head = l.m.nextNum, l.m.head
	s.notifyLocked()
	l.end()
	return nil
}

func (l *Loader) commit() error {
	if err := l.waitSpill(); err != nil {
		return err
	}
	if err := l.flushIndexRun(); err != nil {
		return err
	}
	if l.ix != nil {
		if err := l.ix.Flush(&IndexWriter{run: l.run}); err != nil {
			return fmt.Errorf("store: index: %w", err)
		}
	}
	l.run.set(metaNextNum, binary.BigEndian.AppendUint32(nil, l.m.nextNum))
	l.run.set(metaChainHead, l.m.head.append(nil))
	tables, err := l.merge()
	if err != nil {
		return fmt.Errorf("store: load: %w", err)
	}
	s := l.s
	cols := s.cols.Load()
	if len(l.m.cols) > 0 {
		if cols, err = s.colTables.apply(cols, l.m.cols); err != nil {
			return fmt.Errorf("store: load: %w", err)
		}
	}
	// The columns change with the database, in one step for readers that
	// take both (Store.snapshot), as a mutation's commit publishes them.
	s.pub.Lock()
	defer s.pub.Unlock()
	if err := s.kv.ingest(tables); err != nil {
		return fmt.Errorf("store: load: %w", err)
	}
	s.cols.Store(cols)
	return nil
}

// Abort drops the load: nothing of it is stored. It releases the writer
// lock; calling it after Commit or Abort does nothing.
func (l *Loader) Abort() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.abort()
}

// abortOnClose is Close's Abort; it reports whether the load was open.
func (l *Loader) abortOnClose() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return false
	}
	l.closed = true
	l.abort()
	return true
}

// abort is Abort; the caller holds l.mu.
func (l *Loader) abort() {
	if l.ended {
		return
	}
	if l.ix != nil {
		l.ix.Done(false)
	}
	l.end()
}

func (l *Loader) end() {
	if l.spilling != nil {
		<-l.spilling // its files are about to be removed
		l.spilling = nil
	}
	l.ended = true
	l.run, l.mem = nil, nil
	_ = l.removeTemp()
	l.s.load.CompareAndSwap(l, nil)
	l.s.mu.Unlock()
}

// removeTemp removes the load directory, with what a killed load left.
func (l *Loader) removeTemp() error { return removeLoadTemp(l.s.kv.fs(), l.s.dir) }

func removeLoadTemp(vfs interface{ RemoveAll(string) error }, dir string) error {
	if err := vfs.RemoveAll(filepath.Join(dir, loadTempDir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: remove %s: %w", loadTempDir, err)
	}
	return nil
}
