package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"pgregory.net/rapid"
)

// rawOnDisk reports the files under dir whose bytes contain marker.
func rawOnDisk(t *testing.T, dir, marker string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(marker)) {
			files = append(files, filepath.Base(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// olderReadFixture stores a document with an uncompressed marker, flushes
// it to an sstable, opens a view (a read in progress) and deletes the
// document: the view can still see it, so compaction must keep it.
func olderReadFixture(t *testing.T) (*Store, *view, Ref, string) {
	t.Helper()
	s := openTest(t, &Options{NoSync: true, BlockCompression: "none"})
	ctx := context.Background()
	long := "older-read-marker-" + strings.Repeat("y", 100)
	ref := mustPut(t, s, ctx, `{"node_id":"r","text":"`+long+`"}`)
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	v := s.kv.newView()
	if err := s.Delete(ctx, ref); err != nil {
		t.Fatal(err)
	}
	return s, v, ref, long
}

// startCompact runs Compact in the background and returns its result
// channel and what it first waited for.
func startCompact(t *testing.T, s *Store, ctx context.Context) (<-chan error, string) {
	t.Helper()
	waiting := make(chan string, 1)
	compactWaiting = func(what string) {
		select {
		case waiting <- what:
		default:
		}
	}
	t.Cleanup(func() { compactWaiting = nil })
	done := make(chan error, 1)
	go func() { done <- s.Compact(ctx) }()
	select {
	case err := <-done:
		t.Fatalf("Compact returned (%v) while a read that began before it was still open", err)
	case what := <-waiting:
		return done, what
	case <-time.After(time.Minute):
		t.Fatal("Compact neither waited nor returned within a minute")
	}
	return nil, ""
}

// TestCompactWaitsForOlderReads: a read that began before Compact keeps
// the deleted document visible to itself; Compact waits for it to end and
// then erases the document's bytes.
func TestCompactWaitsForOlderReads(t *testing.T) {
	s, v, ref, long := olderReadFixture(t)
	done, what := startCompact(t, s, context.Background())
	if !strings.Contains(what, "reads") {
		t.Fatalf("Compact waited for %q, want the open read", what)
	}
	if _, found, err := v.get(AppendDocKey(nil, ref.Num), nil); err != nil || !found {
		t.Fatalf("the open read lost the document it began with: %v", err)
	}
	v.close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Compact did not return within a minute of the read ending")
	}
	if files := rawOnDisk(t, s.dir, long); len(files) > 0 {
		t.Fatalf("the deleted document's bytes are still in %v", files)
	}
}

// TestCompactWaitEndsWithContext: Compact's waits end with its context,
// with an error naming what it was waiting for.
func TestCompactWaitEndsWithContext(t *testing.T) {
	s, v, _, _ := olderReadFixture(t)
	defer v.close()
	ctx, cancel := context.WithCancel(context.Background())
	done, _ := startCompact(t, s, ctx)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "reads that began before") {
			t.Fatalf("Compact after cancel: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Compact did not return within a minute of its context ending")
	}
}

// TestCompactClosedStore: Compact on a closed store is ErrClosed, not a
// panic inside Pebble.
func TestCompactClosedStore(t *testing.T) {
	s := openTest(t, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Compact after Close: %v, want ErrClosed", err)
	}
}

// TestSweepMatchesModel applies random add and remove operands to a few
// posting keys beside a plain index key, with sweeps and compactions in
// between: reads always equal the model, a sweep leaves no key whose list
// is empty (and only those go), and the plain key is never touched.
func TestSweepMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := openRapid(t)
		plain := []byte("Xplain")
		b := s.kv.newBatch()
		if err := (&IndexWriter{b: b}).Set(plain, []byte{0, 0, 0, 7}); err != nil {
			t.Fatal(err)
		}
		if err := s.kv.apply(b, false); err != nil {
			t.Fatal(err)
		}
		_ = b.wait()
		model := map[string]map[uint32]bool{}
		for step := rapid.IntRange(1, 40).Draw(t, "steps"); step > 0; step-- {
			stepOperand(t, s, model, 4, 20, 4)
			switch rapid.IntRange(0, 5).Draw(t, "then") {
			case 0:
				if _, err := s.sweepPostings(context.Background()); err != nil {
					t.Fatal(err)
				}
				checkSwept(t, s, model)
			case 1:
				if err := s.kv.compact(); err != nil {
					t.Fatal(err)
				}
			}
			checkModel(t, s, model)
		}
		if v, found, err := s.kv.get(plain, nil); err != nil || !found || !bytes.Equal(v, []byte{0, 0, 0, 7}) {
			t.Fatalf("the plain index key after sweeps: %x %v %v", v, found, err)
		}
	})
}

// checkSwept fails unless exactly the model's non-empty posting keys are
// stored.
func checkSwept(t *rapid.T, s *Store, model map[string]map[uint32]bool) {
	err := s.kv.scan([]byte("Xk"), []byte("Xl"), func(key, _ []byte) error {
		for _, set := range model[string(key)] {
			if set {
				return nil
			}
		}
		return fmt.Errorf("key %s survived a sweep with an empty list", key)
	})
	if err != nil {
		t.Fatal(err)
	}
	for key, bits := range model {
		for _, set := range bits {
			if _, found, _ := s.kv.get([]byte(key), nil); set && !found {
				t.Fatalf("a sweep deleted %s, whose list is not empty", key)
			}
		}
	}
}

// TestSweepCrossesSteps empties more postings than one sweep step reads,
// beside as many that stay, and checks that the sweep deletes exactly the
// empty ones across the step boundaries.
func TestSweepCrossesSteps(t *testing.T) {
	s := openTest(t, nil)
	const keys = 2*sweepChunk + sweepChunk/2
	write := func(add bool) {
		b := s.kv.newBatch()
		w := &IndexWriter{b: b}
		for i := range keys {
			key := []byte(fmt.Sprintf("Xs%06d", i))
			var err error
			switch {
			case add:
				err = w.AddSorted(key, []uint32{1, 2})
			case i%2 == 0: // even keys are emptied, odd ones keep bit 2
				err = w.RemoveBits(key, roaring.BitmapOf(1, 2))
			default:
				err = w.RemoveBits(key, roaring.BitmapOf(1))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := s.kv.apply(b, false); err != nil {
			t.Fatal(err)
		}
		_ = b.wait()
	}
	write(true)
	write(false)
	n, err := s.sweepPostings(context.Background())
	if err != nil || n != (keys+1)/2 {
		t.Fatalf("swept %d keys (%v), want %d", n, err, (keys+1)/2)
	}
	left := 0
	err = s.kv.scan([]byte("Xs"), []byte("Xt"), func(key, value []byte) error {
		left++
		var i int
		fmt.Sscanf(string(key), "Xs%06d", &i)
		if bm, err := decodeBitmap(value); i%2 == 0 || err != nil || !bm.Equals(roaring.BitmapOf(2)) {
			return fmt.Errorf("key %s after the sweep: %v %v", key, bm, err)
		}
		return nil
	})
	if err != nil || left != keys/2 {
		t.Fatalf("%d keys left (%v), want %d", left, err, keys/2)
	}
}

// TestIndexWriterSetRefusesEmptyPosting: a plain index value that would
// read as an empty posting list is refused, so that a sweep can never
// take a plain key for an emptied posting.
func TestIndexWriterSetRefusesEmptyPosting(t *testing.T) {
	s := openTest(t, nil)
	b := s.kv.newBatch()
	defer b.close()
	empty, err := encodeOperand(nil, roaring.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&IndexWriter{b: b}).Set([]byte("Xplain"), empty); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Set of an empty posting's bytes: %v, want ErrInvalid", err)
	}
	if err := (&IndexWriter{b: b}).Set([]byte("Xplain"), []byte{0, 0, 0, 1}); err != nil {
		t.Fatalf("Set of a path id: %v", err)
	}
}
