package index

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aqlstore/aqlstore/store"
)

// allKeys reads every key of s: posting lists decoded, other values as
// they are.
func allKeys(t *testing.T, s *store.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := s.IndexReader().Scan([]byte{0}, []byte{0xff}, func(k, v []byte) error {
		if k[0] == store.IndexPrefix {
			if bm, err := store.DecodeBitmap(v); err == nil && !bm.IsEmpty() {
				out[string(k)] = bm.String()
				return nil
			}
		}
		out[string(k)] = string(v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameKeys(t *testing.T, want, got map[string]string) {
	t.Helper()
	n := 0
	for k, v := range want {
		if got[k] != v && n < 10 {
			n++
			t.Errorf("key %q: batches give %.80q, the load %.80q", k, v, got[k])
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && n < 10 {
			n++
			t.Errorf("key %q only after the load", k)
		}
	}
}

func openText(t *testing.T, dir string) (*store.Store, *Index) {
	t.Helper()
	ix := New()
	ix.want = &Config{TextPaths: []string{"/description"}}
	s, err := store.Open(dir, &store.Options{NoSync: true, Indexer: ix})
	if err != nil {
		t.Fatal(err)
	}
	return s, ix
}

func load(t *testing.T, s *store.Store, docs []store.Document, runDocs int) []store.Ref {
	t.Helper()
	ctx := context.Background()
	l, err := s.NewLoader(ctx, &store.LoadOptions{RunDocs: runDocs})
	if err != nil {
		t.Fatal(err)
	}
	refs := make([]store.Ref, len(docs))
	for i, d := range docs {
		pd, err := s.Prepare(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if refs[i], err = l.Add(pd); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
	}
	if err := l.Commit(); err != nil {
		t.Fatal(err)
	}
	return refs
}

// TestLoaderEqualsPutBatch loads documents in several runs on top of a
// store that already holds some (so posting lists are ORed with
// committed ones, and repeated content counts a reference up) and
// compares every key with a store that took the same documents in
// batches: records, blobs, receipts, meta keys and postings.
func TestLoaderEqualsPutBatch(t *testing.T) {
	ctx := context.Background()
	docs := variedDocs(400)
	docs = append(docs, docs[7], docs[399]) // repeats inside the input
	other := store.WithPrincipal(ctx, "did:example:other")
	otherDoc := docs[3]
	otherDoc.Owner = "did:example:other" // the same content under another owner: a second reference
	docs = append(docs, otherDoc)
	var want, got map[string]string
	for _, bulk := range []bool{false, true} {
		s, _ := openText(t, t.TempDir())
		if _, err := s.PutBatch(ctx, docs[:50]); err != nil {
			t.Fatal(err)
		}
		var refs []store.Ref
		if bulk {
			refs = load(t, s, docs[40:], 64)
		} else {
			var err error
			if refs, err = s.PutBatch(ctx, docs[40:]); err != nil {
				t.Fatal(err)
			}
		}
		if refs[0].Created || !refs[10].Created || refs[len(refs)-2].Created || !refs[len(refs)-1].Created {
			t.Errorf("bulk %v: Created flags %v %v %v %v", bulk, refs[0].Created, refs[10].Created,
				refs[len(refs)-2].Created, refs[len(refs)-1].Created)
		}
		if bulk {
			got = allKeys(t, s)
		} else {
			want = allKeys(t, s)
		}
		rep, err := Check(other, s)
		if err != nil || !rep.OK() {
			t.Fatalf("bulk %v: index check: %+v %v", bulk, rep, err)
		}
		if vr, err := s.Verify(ctx); err != nil || !vr.OK() {
			t.Fatalf("bulk %v: verify: %+v %v", bulk, vr, err)
		}
		s.Close()
	}
	sameKeys(t, want, got)
}

// TestLoaderRefusesConflicts: a natural-key conflict inside the input
// and one with the store are both reported; Abort then stores nothing,
// and a load that goes on without the refused documents commits the
// others.
func TestLoaderRefusesConflicts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, _ := openText(t, dir)
	defer s.Close()
	put(t, s, ctx, `{"offer_id":"held","n":1}`)
	before := allKeys(t, s)
	bodies := []string{`{"offer_id":"a","n":1}`, `{"offer_id":"held","n":2}`, `{"offer_id":"b","n":1}`,
		`{"offer_id":"c","n":1}`, `{"offer_id":"a","n":2}`, `{"offer_id":"d","n":1}`}
	loadAll := func() (*store.Loader, []int) {
		l, err := s.NewLoader(ctx, &store.LoadOptions{RunDocs: 2})
		if err != nil {
			t.Fatal(err)
		}
		var bad []int
		for i, body := range bodies {
			pd, err := s.Prepare(ctx, store.Document{Body: []byte(body)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Add(pd); err != nil {
				if !errors.Is(err, store.ErrConflict) {
					t.Errorf("document %d: %v, want a conflict", i, err)
				}
				bad = append(bad, i)
			}
		}
		return l, bad
	}
	l, bad := loadAll()
	if len(bad) != 2 || bad[0] != 1 || bad[1] != 4 {
		t.Fatalf("refused documents %v, want [1 4]", bad)
	}
	if _, err := os.Stat(filepath.Join(dir, "load.tmp")); err != nil {
		t.Fatalf("no spilled runs: %v", err)
	}
	l.Abort()
	sameKeys(t, before, allKeys(t, s))
	if _, err := os.Stat(filepath.Join(dir, "load.tmp")); !os.IsNotExist(err) {
		t.Fatalf("the load's files outlive it: %v", err)
	}
	l, _ = loadAll() // Abort released the writer lock
	if err := l.Commit(); err != nil || l.Added() != 4 {
		t.Fatalf("commit without the refused documents: %v, %d added, want 4", err, l.Added())
	}
	if rep, err := Check(ctx, s); err != nil || !rep.OK() {
		t.Fatalf("index check: %+v %v", rep, err)
	}
}

// TestOpenRemovesKilledLoad: files a killed load left are removed when
// the store opens, and the store holds what it held before.
func TestOpenRemovesKilledLoad(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, _ := openText(t, dir)
	put(t, s, ctx, `{"offer_id":"a","n":1}`)
	before := allKeys(t, s)
	s.Close()
	tmp := filepath.Join(dir, "load.tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "run-000001"), bytes.Repeat([]byte{1}, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ = openText(t, dir)
	defer s.Close()
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("a killed load's files survive Open: %v", err)
	}
	sameKeys(t, before, allKeys(t, s))
}

// TestImportLoadsInBulk imports an export of more than a batch of
// documents into a store whose Index loads in bulk, and into one that
// takes batches (its indexer hides Extract): the two stores must hold the
// same keys, migration receipt included.
func TestImportLoadsInBulk(t *testing.T) {
	ctx := context.Background()
	docs := variedDocs(1200)
	var stores []map[string]string
	for _, bulk := range []bool{false, true} {
		ix := New()
		var ixr store.Indexer = addOnly{ix}
		if bulk {
			ixr = ix
		}
		s, err := store.Open(t.TempDir(), &store.Options{NoSync: true, Indexer: ixr})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.PutBatch(ctx, docs); err != nil {
			t.Fatal(err)
		}
		e, err := s.Export(ctx, store.Public)
		if err != nil {
			t.Fatal(err)
		}
		owner := "did:example:importer"
		rep, err := s.Import(store.WithPrincipal(ctx, owner), e, owner, store.Migration{ExportDigest: "00"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Refs) != len(docs) || !rep.Refs[len(docs)-1].Created {
			t.Fatalf("bulk %v: import stored %d documents", bulk, len(rep.Refs))
		}
		if rep, err := Check(ctx, s); err != nil || !rep.OK() {
			t.Fatalf("bulk %v: index check: %+v %v", bulk, rep, err)
		}
		stores = append(stores, allKeys(t, s))
		s.Close()
	}
	sameKeys(t, stores[0], stores[1])
}

// TestLargeImportIsWhole: an import of more than a batch whose document
// 1,101 conflicts with the importer's own stores none of its documents
// (it stored the first batches before it was loaded in bulk).
func TestLargeImportIsWhole(t *testing.T) {
	ctx := context.Background()
	s, _ := openText(t, t.TempDir())
	defer s.Close()
	if _, err := s.PutBatch(ctx, variedDocs(1200)); err != nil {
		t.Fatal(err)
	}
	e, err := s.Export(ctx, store.Public)
	if err != nil {
		t.Fatal(err)
	}
	owner := "did:example:importer"
	octx := store.WithPrincipal(ctx, owner)
	put(t, s, octx, `{"offer_id":"o1100","other":true}`)
	before, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(octx, e, owner, store.Migration{ExportDigest: "00"}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("import over a conflicting natural key: %v, want a conflict", err)
	}
	after, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Documents != before.Documents {
		t.Fatalf("the refused import stored %d documents", after.Documents-before.Documents)
	}
}

// TestLoadUpdatesCachedPostings: posting lists a query cached before a
// load (every document, a kind) include the load's documents after it,
// whether the load spilled runs or not.
func TestLoadUpdatesCachedPostings(t *testing.T) {
	ctx := context.Background()
	docs := variedDocs(120)
	for _, runDocs := range []int{1000, 16} {
		s, ix := openText(t, t.TempDir())
		if _, err := s.PutBatch(ctx, docs[:20]); err != nil {
			t.Fatal(err)
		}
		before, err := ix.All() // caches the list
		if err != nil {
			t.Fatal(err)
		}
		load(t, s, docs[20:], runDocs)
		after, err := ix.All()
		if err != nil {
			t.Fatal(err)
		}
		if n := after.GetCardinality(); n != before.GetCardinality()+100 {
			t.Errorf("runs of %d: every-document list holds %d after the load, want %d", runDocs, n, before.GetCardinality()+100)
		}
		s.Close()
	}
}

// TestPutAfterLoadIndexesBuckets: a load leaves the range buckets out of
// its runs (the merge derives them); once it ends, committed or aborted,
// mutations add them again, and the index check finds every bucket
// whole.
func TestPutAfterLoadIndexesBuckets(t *testing.T) {
	ctx := context.Background()
	docs := variedDocs(120)
	s, _ := openText(t, t.TempDir())
	defer s.Close()
	load(t, s, docs[:40], 16)
	l, err := s.NewLoader(ctx, &store.LoadOptions{RunDocs: 16})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs[40:80] {
		pd, err := s.Prepare(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Add(pd); err != nil {
			t.Fatal(err)
		}
	}
	l.Abort()
	if _, err := s.PutBatch(ctx, docs[80:]); err != nil {
		t.Fatal(err)
	}
	buckets := 0
	for k := range allKeys(t, s) {
		if len(k) > 1 && k[1] == famBucket {
			buckets++
		}
	}
	if buckets == 0 {
		t.Fatal("no bucket postings after a load and a batch")
	}
	if rep, err := Check(ctx, s); err != nil || !rep.OK() {
		t.Fatalf("index check: %+v %v", rep, err)
	}
}

// TestDeriveReusesItsBuffer: the merge derives the buckets of every range
// posting key of a load, millions of them; the derived keys are those
// extraction writes, and building them allocates nothing once the
// caller's buffer has grown.
func TestDeriveReusesItsBuffer(t *testing.T) {
	ix := New()
	v, err := AppendNumberKey([]byte{typeNumber}, "649.85")
	if err != nil {
		t.Fatal(err)
	}
	key := append(appendPathKey(nil, famRange, 7), v...)
	var want []string
	for level, n := range bucketLevels(typeNumber) {
		want = append(want, string(appendBucket(appendPathKey(nil, famBucket, 7), v, level, n)))
	}
	var got []string
	buf := ix.Derive(key, nil, func(d []byte) { got = append(got, string(d)) })
	if !slices.Equal(got, want) {
		t.Fatalf("Derive: %q, want %q", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { buf = ix.Derive(key, buf, func([]byte) {}) }); n != 0 {
		t.Errorf("Derive allocated %v times per call with a grown buffer", n)
	}
}
