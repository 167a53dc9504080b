package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/store/faultfs"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// extractingIndexer is countingIndexer as an IndexExtractor, whose
// Extract has nothing to hand over: every document's postings are its
// number, which AddExtracted alone knows.
type extractingIndexer struct {
	countingIndexer
	extracted int // AddExtracted calls
}

func (x *extractingIndexer) Extract(IndexInput) (any, error) { return nil, nil }
func (x *extractingIndexer) AddExtracted(num uint32, v any) error {
	if v != nil {
		return fmt.Errorf("document %d: extracted %v, want nil", num, v)
	}
	x.extracted++
	return x.Add(num, IndexInput{})
}
func (x *extractingIndexer) FlushRun(w *IndexWriter) error {
	if len(x.nums) == 0 {
		return nil
	}
	err := x.Flush(w)
	x.nums = x.nums[:0]
	return err
}

// closeWithin closes s, failing the test rather than waiting past a
// deadline for a Close that does not return.
func closeWithin(t *testing.T, s *Store) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not return: it waits for the open load's writer lock")
		return nil
	}
}

// TestCloseAbortsOpenLoad: Close with a Loader still open, as a deferred
// Close after a failed Add leaves it, aborts the load rather than
// waiting forever for its writer lock, says so, and stores nothing of
// it; the Loader's later calls are refused.
func TestCloseAbortsOpenLoad(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustPut(t, s, ctx, `{"before":1}`)
	l, err := s.NewLoader(ctx, &LoadOptions{RunDocs: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 { // two runs spilled, one in memory
		pd, err := s.Prepare(ctx, Document{Body: fmt.Appendf(nil, `{"n":%d}`, i)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Add(pd); err != nil {
			t.Fatal(err)
		}
	}
	if err := closeWithin(t, s); !errors.Is(err, ErrLoadAborted) {
		t.Fatalf("Close with a load open: %v, want %v", err, ErrLoadAborted)
	}
	pd := &Prepared{s: s}
	if _, err := l.Add(pd); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close: %v, want %v", err, ErrClosed)
	}
	if err := l.Commit(); !errors.Is(err, ErrClosed) {
		t.Errorf("Commit after Close: %v, want %v", err, ErrClosed)
	}
	l.Abort()
	if _, err := s.NewLoader(ctx, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("NewLoader after Close: %v, want %v", err, ErrClosed)
	}
	if _, err := os.Stat(filepath.Join(dir, loadTempDir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the aborted load's runs are left: %v", err)
	}
	s, err = Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 1 {
		t.Errorf("%d documents after the aborted load, want the 1 put before it", st.Documents)
	}
	verifyOK(t, s)
}

// TestLoaderTakesNilExtraction: an IndexExtractor may extract nothing
// (nil) from a document; a load hands that to AddExtracted, as PutBatch
// does, instead of refusing the document as prepared by another store.
func TestLoaderTakesNilExtraction(t *testing.T) {
	x := &extractingIndexer{}
	s := openTest(t, &Options{NoSync: true, Indexer: x})
	loadNumbered(t, s, 300, &LoadOptions{RunDocs: 100})
	if x.extracted != 300 {
		t.Errorf("AddExtracted called %d times, want 300", x.extracted)
	}
	bm, err := s.IndexReader().Bitmap([]byte{IndexPrefix, 'a'})
	if err != nil {
		t.Fatal(err)
	}
	if bm.GetCardinality() != 300 {
		t.Errorf("posting of every document lists %d, want 300", bm.GetCardinality())
	}
	ctx := context.Background()
	other := openTest(t, &Options{NoSync: true, Indexer: &extractingIndexer{}})
	pd, err := other.Prepare(ctx, Document{Body: []byte(`{"other":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.NewLoader(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Abort()
	if _, err := l.Add(pd); !errors.Is(err, ErrInvalid) {
		t.Errorf("Add of a document another store prepared: %v, want %v", err, ErrInvalid)
	}
}

// TestSpillWritesAscendingRangesAsTables: a spilled run writes its
// records, column entries and receipts straight into sstables, not into
// files the merge reads back, and the load stores every document.
func TestSpillWritesAscendingRangesAsTables(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	l, err := s.NewLoader(ctx, &LoadOptions{RunDocs: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Abort()
	for i := range 250 {
		pd, err := s.Prepare(ctx, Document{Body: fmt.Appendf(nil, `{"n":%d}`, i)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Add(pd); err != nil {
			t.Fatal(err)
		}
	}
	l.mu.Lock()
	err = l.waitSpill() // the second run spills while a third is built
	l.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.runs) != 2 {
		t.Fatalf("%d runs spilled, want 2", len(l.runs))
	}
	for _, fam := range []byte{prefixDoc, prefixColumn, prefixReceipt} {
		rg := rangeOf([]byte{fam})
		for i, sp := range l.runs {
			if sp.ranges[rg] > 0 {
				t.Errorf("run %d spilled family %q to a file", i+1, fam)
			}
		}
		if a := l.asc[rg]; a == nil || len(a.tables) != 2 {
			t.Errorf("family %q: tables of the spilled runs %v, want one per run", fam, a)
		}
	}
	if err := l.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 250 || st.Receipts != 250 {
		t.Errorf("%d documents and %d receipts after the load, want 250 of each", st.Documents, st.Receipts)
	}
	verifyOK(t, s)
}

// TestCloseAbortsLoadOfAnotherGoroutine: Close from one goroutine while
// another adds to a load aborts the load between two Adds; the adding
// goroutine's next Add says the store was closed.
func TestCloseAbortsLoadOfAnotherGoroutine(t *testing.T) {
	s, err := Open(t.TempDir(), &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := s.NewLoader(ctx, &LoadOptions{RunDocs: 50})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			pd, err := s.Prepare(ctx, Document{Body: fmt.Appendf(nil, `{"n":%d}`, i)})
			if err != nil {
				done <- err
				return
			}
			if _, err := l.Add(pd); err != nil {
				done <- err
				return
			}
			if i == 10 {
				close(started)
			}
		}
	}()
	<-started
	if err := closeWithin(t, s); !errors.Is(err, ErrLoadAborted) {
		t.Errorf("Close: %v, want %v", err, ErrLoadAborted)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Add after Close: %v, want %v", err, ErrClosed)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the adding goroutine did not stop")
	}
}

// TestLoadSpillFailureStoresNothing: a run whose spill fails (its files
// cannot be written) fails the load, though it spills while the next
// run is built: the error reaches the next spill's Add (runs of 40 of
// 100 documents) or Commit (runs of 60), which stores nothing, and the
// store takes the load again once the disk works.
func TestLoadSpillFailureStoresNothing(t *testing.T) {
	for _, runDocs := range []int{40, 60} {
		t.Run(fmt.Sprint(runDocs), func(t *testing.T) { testLoadSpillFailure(t, runDocs) })
	}
}

func testLoadSpillFailure(t *testing.T, runDocs int) {
	dir := t.TempDir()
	ffs := faultfs.New(vfs.Default)
	s, err := Open(dir, &Options{FS: ffs, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	load := func() error {
		l, err := s.NewLoader(ctx, &LoadOptions{RunDocs: runDocs})
		if err != nil {
			return err
		}
		defer l.Abort()
		for i := range 100 {
			pd, err := s.Prepare(ctx, Document{Body: fmt.Appendf(nil, `{"n":%d}`, i)})
			if err != nil {
				return err
			}
			if _, err := l.Add(pd); err != nil {
				return err
			}
		}
		return l.Commit()
	}
	ffs.Set(faultfs.WriteError, "run-*")
	if err := load(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("a load whose runs cannot be written: %v, want EIO", err)
	}
	if st, err := s.Stats(ctx); err != nil || st.Documents != 0 {
		t.Fatalf("after the failed load: %d documents (err %v), want none", st.Documents, err)
	}
	ffs.Clear()
	if err := load(); err != nil {
		t.Fatalf("the same load once the disk works: %v", err)
	}
	if st, err := s.Stats(ctx); err != nil || st.Documents != 100 {
		t.Fatalf("after the load: %d documents (err %v), want 100", st.Documents, err)
	}
	verifyOK(t, s)
}
