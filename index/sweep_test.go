package index

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// These tests show that Compact drops the dictionary entries of paths
// only deleted documents had: their member names leave the disk, lookups
// and Check agree with the documents afterwards, and a dropped path id is
// never given out again, across reopens.

// storeFiles returns what the files of the store in dir hold: each file's
// raw bytes, and for an sstable every key and value (range deletions
// included) as Pebble's reader decodes them, since an sstable stores its
// keys prefix compressed. A file Pebble removed meanwhile is skipped.
func storeFiles(t *testing.T, dir string) map[string][][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]byte{}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if errors.Is(err, fs.ErrNotExist) || e.IsDir() {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = append(out[e.Name()], raw)
		if strings.HasSuffix(e.Name(), ".sst") {
			out[e.Name()] = append(out[e.Name()], sstableEntries(t, filepath.Join(dir, e.Name()))...)
		}
	}
	return out
}

// sstableEntries returns the user keys, values and range deletion bounds
// of the sstable at path.
func sstableEntries(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := vfs.Default.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	readable, err := sstable.NewSimpleReadable(f)
	if err != nil {
		t.Fatal(err)
	}
	// The store's merger is only named: reading entries merges nothing.
	const merger = "aqlstore.bitmap.v1"
	opts := sstable.ReaderOptions{Mergers: sstable.Mergers{merger: {Name: merger, Merge: pebble.DefaultMerger.Merge}}}
	points, dels, _, err := sstable.ReadAll(readable, opts, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out [][]byte
	for _, kv := range points {
		out = append(out, kv.K.UserKey, kv.V.InPlaceValue())
	}
	for _, s := range dels {
		out = append(out, s.Start, s.End)
	}
	return out
}

// filesHolding lists "file: name" for every name some file of dir holds.
func filesHolding(t *testing.T, dir string, names []string) []string {
	t.Helper()
	var hits []string
	for file, contents := range storeFiles(t, dir) {
		for _, name := range names {
			if slices.ContainsFunc(contents, func(b []byte) bool { return bytes.Contains(b, []byte(name)) }) {
				hits = append(hits, file+": "+name)
			}
		}
	}
	slices.Sort(hits)
	return hits
}

func openSweepStore(t *testing.T, dir string) (*store.Store, *Index) {
	t.Helper()
	// Uncompressed blocks, so that the raw search sees values as written.
	s, ix, err := Open(dir, &store.Options{NoSync: true, BlockCompression: "none", MemTableSize: 1 << 20, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ix
}

func compact(t *testing.T, s *store.Store) {
	t.Helper()
	if err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func checkIndex(t testing.TB, s *store.Store) {
	t.Helper()
	rep, err := Check(context.Background(), s)
	if err != nil || !rep.OK() {
		t.Fatalf("index check: %v %v", err, rep)
	}
}

// TestCompactErasesMemberNames stores documents whose member names (at
// the top, nested, and inside arrays) no other document has, deletes
// them, compacts, and searches every file of the store for the names.
func TestCompactErasesMemberNames(t *testing.T) {
	dir := t.TempDir()
	s, ix := openSweepStore(t, dir)
	ctx := context.Background()
	for i := range 10 { // documents that stay, with paths that must stay
		put(t, s, ctx, fmt.Sprintf(`{"node_id":"kept-%d","shared":{"n":%d}}`, i, i))
	}
	var names []string
	var refs []store.Ref
	for i := range 3 {
		top, nested, inArray := "mt"+rand.Text(), "mn"+rand.Text(), "ma"+rand.Text()
		names = append(names, top, nested, inArray)
		refs = append(refs, put(t, s, ctx, fmt.Sprintf(`{"node_id":"gone-%d",%q:{%q:[{%q:"x"}]},"shared":{"n":1}}`,
			i, top, nested, inArray)))
	}
	compact(t, s) // into an sstable, where the search must see them
	if hits := filesHolding(t, dir, names); len(hits) < len(names) {
		t.Fatalf("the search sees only %v of the stored names %v", hits, names)
	}
	for _, ref := range refs {
		if err := s.Delete(ctx, ref); err != nil {
			t.Fatal(err)
		}
	}
	compact(t, s)
	if hits := filesHolding(t, dir, names); len(hits) > 0 {
		t.Fatalf("member names of deleted documents still on disk after Compact:\n%s", strings.Join(hits, "\n"))
	}
	for p := range ix.ids {
		for _, name := range names {
			if strings.Contains(string(p), name) {
				t.Fatalf("the dictionary in memory still holds %s", p)
			}
		}
	}
	ids, _ := paths(t, ix, "/shared/n")
	if bm, err := ix.Exists(ids); err != nil || bm.GetCardinality() != 10 {
		t.Fatalf("/shared/n after the sweep: %v %v, want the 10 kept documents", bm, err)
	}
	checkIndex(t, s)
}

// TestSweptIDsAreNeverReused drops paths with the highest ids, reopens
// the store, and checks that the dictionary loads without them and that
// new paths, and the same names put again, get ids above every id given
// before.
func TestSweptIDsAreNeverReused(t *testing.T) {
	dir := t.TempDir()
	s, ix := openSweepStore(t, dir)
	ctx := context.Background()
	put(t, s, ctx, `{"node_id":"kept"}`)
	gone := put(t, s, ctx, `{"node_id":"gone","late":{"later":1}}`)
	old, _ := paths(t, ix, "/late/later")
	highest := ix.next - 1
	if len(old) != 1 || old[0] != highest {
		t.Fatalf("/late/later has ids %v; want the highest id given, %d", old, highest)
	}
	if err := s.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	compact(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, ix = openSweepStore(t, dir)
	for _, ptr := range []string{"/late", "/late/later"} {
		if ids, _ := paths(t, ix, ptr); len(ids) > 0 {
			t.Fatalf("%s has ids %v after the sweep and a reopen", ptr, ids)
		}
	}
	if ix.next <= highest {
		t.Fatalf("after reopening, the next path id is %d: it would reuse dropped id %d", ix.next, highest)
	}
	put(t, s, ctx, `{"node_id":"again","late":{"later":2},"fresh":true}`)
	for _, ptr := range []string{"/late", "/late/later", "/fresh"} {
		ids, _ := paths(t, ix, ptr)
		if len(ids) != 1 || ids[0] <= highest {
			t.Fatalf("%s has ids %v after the sweep; want one id above %d", ptr, ids, highest)
		}
	}
	checkIndex(t, s)
}

// TestArrayChildrenSkipsDroppedIDs: a lookup that resolved a pointer
// before a sweep dropped its path must find nothing under the old id, not
// the root's array level (the zero path).
func TestArrayChildrenSkipsDroppedIDs(t *testing.T) {
	dir := t.TempDir()
	s, ix := openSweepStore(t, dir)
	ctx := context.Background()
	put(t, s, ctx, `[1,2]`) // the root's array level is a path
	gone := put(t, s, ctx, `{"tags":["a"]}`)
	ids, _ := paths(t, ix, "/tags")
	if err := s.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	compact(t, s)
	if kids := ix.ArrayChildren(ids); len(kids) > 0 {
		t.Fatalf("ArrayChildren of dropped path ids %v: %v, want none", ids, kids)
	}
}

// corrupting is an Index whose next commit also writes extra keys: a
// damaged index for Check and the sweep.
type corrupting struct {
	*Index
	extra func(w *store.IndexWriter) error
}

func (c *corrupting) Flush(w *store.IndexWriter) error {
	if err := c.Index.Flush(w); err != nil {
		return err
	}
	if c.extra == nil {
		return nil
	}
	extra := c.extra
	c.extra = nil
	return extra(w)
}

func openCorrupting(t *testing.T) (*store.Store, *corrupting) {
	t.Helper()
	c := &corrupting{Index: New()}
	s, err := store.Open(t.TempDir(), &store.Options{NoSync: true, Indexer: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, c
}

// TestCheckFindsDictionaryDamage: Check reports a posting under a path id
// the dictionary does not hold (even an empty one: a sweep deletes those
// with the path) and a reverse entry without its path.
func TestCheckFindsDictionaryDamage(t *testing.T) {
	s, c := openCorrupting(t)
	ctx := context.Background()
	c.extra = func(w *store.IndexWriter) error {
		if err := w.AddSorted(appendPathKey(nil, famEq, 999), nil); err != nil {
			return err
		}
		return w.Set(appendPathKey(nil, famPathID, 998), []byte(Path("").appendMember("secret")))
	}
	put(t, s, ctx, `{"node_id":"a"}`)
	rep, err := Check(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(rep.Problems, "\n")
	for _, want := range []string{"under path id 999, which is not in the dictionary", "reverse dictionary entry 998 (/secret)"} {
		if !strings.Contains(all, want) {
			t.Errorf("Check did not report %q; it found:\n%s", want, all)
		}
	}
}

// TestSweepKeepsPathWithLivePosting: a path whose existence posting is
// empty while another of its postings lists a document is damage; the
// sweep keeps it (keeping is always safe) and Check reports the posting.
func TestSweepKeepsPathWithLivePosting(t *testing.T) {
	s, c := openCorrupting(t)
	ctx := context.Background()
	gone := put(t, s, ctx, `{"odd":"v"}`)
	ids, _ := paths(t, c.Index, "/odd")
	if err := s.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	c.extra = func(w *store.IndexWriter) error {
		return w.AddSorted(append(appendPathKey(nil, famEq, ids[0]), typeString, 'v'), []uint32{gone.Num})
	}
	put(t, s, ctx, `{"node_id":"other"}`)
	compact(t, s)
	if after, _ := paths(t, c.Index, "/odd"); !slices.Equal(after, ids) {
		t.Fatalf("/odd has ids %v after the sweep, want %v kept", after, ids)
	}
	rep, err := Check(ctx, s)
	if err != nil || rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), "that do not have it") {
		t.Fatalf("Check after the sweep: %v %+v", err, rep)
	}
}

// TestCompactKeepsPathsOfConcurrentPuts puts and deletes documents with a
// few member names while Compact runs again and again and lookups go on
// (run with -race): the sweep must never drop the path of a document a
// put committed, and the index must equal the documents at the end.
func TestCompactKeepsPathsOfConcurrentPuts(t *testing.T) {
	s, ix := openSweepStore(t, t.TempDir())
	ctx := context.Background()
	const docs = 300
	type keptDoc struct {
		ref store.Ref
		i   int
	}
	kept := make(chan keptDoc, docs)
	errc := make(chan error, 1)
	go func() {
		defer close(kept)
		for i := range docs {
			ref, err := s.Put(ctx, store.Document{Body: fmt.Appendf(nil, `{"node_id":"c-%d","m%d":%d}`, i, i%5, i)})
			if err == nil && i%2 == 0 {
				err = s.Delete(ctx, ref)
			} else if err == nil {
				kept <- keptDoc{ref, i}
			}
			if err != nil {
				errc <- err
				return
			}
		}
	}()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			ids, _ := ix.Paths(canon.MustParsePointer("/**"))
			_ = ix.ArrayChildren(ids)
		}
	}()
	for compacting := true; compacting; {
		select {
		case err := <-errc:
			t.Fatal(err)
		case d, ok := <-kept:
			if !ok {
				compacting = false
				break
			}
			compact(t, s)
			// A document committed before this Compact keeps its path.
			ids, _ := paths(t, ix, fmt.Sprintf("/m%d", d.i%5))
			if bm, _, err := ix.Eq(ids, canon.Number(fmt.Sprint(d.i))); err != nil || !bm.Contains(d.ref.Num) {
				t.Fatalf("document %d (m%d = %d) lost from the index by a concurrent Compact: %v %v", d.ref.Num, d.i%5, d.i, bm, err)
			}
		}
	}
	checkIndex(t, s)
	for m := range 5 {
		ids, _ := paths(t, ix, fmt.Sprintf("/m%d", m))
		bm, err := ix.Exists(ids)
		// Odd i are kept, and i%5 == m for a fifth of them.
		if err != nil || int(bm.GetCardinality()) != docs/10 {
			t.Fatalf("/m%d: %v %v, want %d documents", m, bm, err, docs/10)
		}
	}
}

// failingSweep is an Index whose sweep steps fail after writing their
// deletions and staging their drops.
type failingSweep struct{ *Index }

var errSweepTest = errors.New("sweep step failed on purpose")

func (f failingSweep) Sweep(r *store.IndexReader, w *store.IndexWriter, from []byte) ([]byte, error) {
	if _, err := f.Index.Sweep(r, w, from); err != nil {
		return nil, err
	}
	return nil, errSweepTest
}

// TestFailedSweepStepDropsNothing: a step that fails commits nothing and
// leaves the dictionary in memory as on disk; the next Compact drops.
func TestFailedSweepStepDropsNothing(t *testing.T) {
	dir := t.TempDir()
	f := failingSweep{New()}
	s, err := store.Open(dir, &store.Options{NoSync: true, Indexer: f})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gone := put(t, s, ctx, `{"odd":1}`)
	ids, _ := paths(t, f.Index, "/odd")
	if err := s.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(ctx); !errors.Is(err, errSweepTest) || !strings.Contains(err.Error(), "sweep index") {
		t.Fatalf("Compact with a failing sweep step: %v", err)
	}
	if after, _ := paths(t, f.Index, "/odd"); !slices.Equal(after, ids) {
		t.Fatalf("/odd has ids %v after a failed step, want %v", after, ids)
	}
	checkIndex(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, ix := openSweepStore(t, dir)
	if after, _ := paths(t, ix, "/odd"); !slices.Equal(after, ids) {
		t.Fatalf("/odd has ids %v on disk after a failed step, want %v", after, ids)
	}
	compact(t, s)
	if after, _ := paths(t, ix, "/odd"); len(after) > 0 {
		t.Fatalf("/odd has ids %v after a Compact that succeeded", after)
	}
	checkIndex(t, s)
}
