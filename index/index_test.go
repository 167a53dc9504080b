package index

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/cockroachdb/apd/v3"
	"pgregory.net/rapid"
)

func openIndexed(t testing.TB) (*store.Store, *Index) {
	t.Helper()
	s, ix, err := Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ix
}

func put(t testing.TB, s *store.Store, ctx context.Context, body string) store.Ref {
	t.Helper()
	ref, err := s.Put(ctx, store.Document{Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func paths(t *testing.T, ix *Index, ptr string) ([]uint32, bool) {
	t.Helper()
	return ix.Paths(canon.MustParsePointer(ptr))
}

func TestPostings(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	a := put(t, s, ctx, `{"offer_id":"a","tags":["x","sale"],"price":{"amount":"79.99"},"n":1.0,"at":"2026-05-03T10:00:00+02:00","ok":true}`)
	b := put(t, s, ctx, `{"offer_id":"b","tags":["y"],"price":{"amount":"120.00"},"n":2,"at":"2026-06-01T00:00:00Z","ok":null}`)
	has := func(what string, bm interface{ Contains(uint32) bool }, num uint32, want bool) {
		t.Helper()
		if bm.Contains(num) != want {
			t.Errorf("%s: contains %d = %v, want %v", what, num, !want, want)
		}
	}
	ids, exact := paths(t, ix, "/tags/*")
	if len(ids) != 1 || !exact {
		t.Fatalf("/tags/*: %v %v", ids, exact)
	}
	eq, exact, _ := ix.Eq(ids, "sale")
	has("tags eq sale", eq, a.Num, true)
	has("tags eq sale", eq, b.Num, false)
	if !exact {
		t.Error("string eq not exact")
	}
	ids, exact = paths(t, ix, "/tags/0")
	if !(len(ids) == 1 && !exact) {
		t.Errorf("/tags/0 should be lossy: %v %v", ids, exact)
	}
	nids, _ := paths(t, ix, "/n")
	one, exact, _ := ix.Eq(nids, canon.Number("1.00"))
	has("n eq 1.00", one, a.Num, true)
	if !exact {
		t.Error("1.00 vs canonical 1 should be exact")
	}
	pids, _ := paths(t, ix, "/price/amount")
	cheap, _ := ix.NumberRange(pids, NumberBounds{Hi: apd.New(100, 0)})
	has("price <= 100", cheap, a.Num, true)
	has("price <= 100", cheap, b.Num, false)
	tids, _ := paths(t, ix, "/**/at")
	early, _ := ix.InstantRange(tids, InstantBounds{Hi: &canon.Instant{T: time.Date(2026, 5, 3, 8, 0, 0, 0, time.UTC)}})
	has("at <= 08:00Z", early, a.Num, true)
	has("at <= 08:00Z", early, b.Num, false)
	g, _ := ix.Grams(ids[:0:0], "sal")
	if !g.IsEmpty() {
		t.Error("grams over no paths")
	}
	tagIDs, _ := paths(t, ix, "/tags/*")
	g, _ = ix.Grams(tagIDs, "ale")
	has("tags contain 'ale'", g, a.Num, true)
	has("tags contain 'ale'", g, b.Num, false)
	all, _ := ix.Kinds([]canon.Kind{canon.KindOffer})
	if all.GetCardinality() != 2 {
		t.Errorf("kind bitmap %v", all)
	}
	// Deleting removes every posting.
	if err := s.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	eq, _, _ = ix.Eq(tagIDs, "sale")
	all, _ = ix.All()
	if !eq.IsEmpty() || all.Contains(a.Num) {
		t.Errorf("postings survive delete: %v %v", eq, all)
	}
}

func TestReopenKeepsDictionaryAndRefusesUnindexedOpen(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, context.Background(), `{"offer_id":"a","deep":{"x":[1,2]}}`)
	s.Close()
	if _, err := store.Open(dir, nil); err == nil {
		t.Fatal("an indexed store opened without its index")
	}
	s, ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids, exact := ix.Paths(canon.MustParsePointer("/deep/x/*"))
	bm, _, _ := ix.Eq(ids, canon.Number("2"))
	if len(ids) != 1 || !exact || bm.GetCardinality() != 1 {
		t.Fatalf("after reopen: %v %v %v", ids, exact, bm)
	}
	plain := t.TempDir()
	s2, _ := store.Open(plain, nil)
	put(t, s2, context.Background(), `{"offer_id":"z"}`)
	s2.Close()
	if _, _, err := Open(plain, nil); err == nil {
		t.Fatal("indexing started on a store with unindexed documents")
	}
}

func TestPathMatch(t *testing.T) {
	p := Path("").appendMember("a").appendArray().appendMember("b")
	cases := map[string]matchMode{
		"/a/*/b": exactMatch, "/a/0/b": lossyMatch, "/**/b": exactMatch, "/**": exactMatch,
		"/a/**": exactMatch, "/*/*/*": exactMatch, "/a/b": noMatch, "/a/-/b": noMatch, "/a/*": noMatch,
	}
	for ptr, want := range cases {
		if got := match(canon.MustParsePointer(ptr).Segments(), p.segments()); got != want {
			t.Errorf("%s vs %s: %v, want %v", ptr, p, got, want)
		}
	}
	if p.String() != "/a/*/b" {
		t.Errorf("String %q", p.String())
	}
}

func TestReindexAndCheck(t *testing.T) {
	dir := t.TempDir()
	plain, err := store.Open(dir, &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, b := range []string{`{"offer_id":"a","t":["x","y"]}`, `{"offer_id":"b","n":2}`, `{"offer_id":"c","n":3}`} {
		put(t, plain, ctx, b)
	}
	ref := put(t, plain, ctx, `{"offer_id":"d"}`)
	if err := plain.Delete(ctx, ref); err != nil {
		t.Fatal(err)
	}
	plain.Close()
	calls := 0
	if err := Reindex(ctx, dir, nil, 2, func(int) { calls++ }); err != nil {
		t.Fatal(err)
	}
	if calls < 2 {
		t.Errorf("progress called %d times", calls)
	}
	s, ix, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("open after reindex: %v", err)
	}
	defer s.Close()
	rep, err := Check(ctx, s)
	if err != nil || !rep.OK() || rep.Documents != 3 {
		t.Fatalf("check after reindex: %v %+v", err, rep)
	}
	ids, _ := ix.Paths(canon.MustParsePointer("/n"))
	bm, _, _ := ix.Eq(ids, canon.Number("3"))
	if bm.GetCardinality() != 1 {
		t.Fatalf("reindexed lookup: %v", bm)
	}
}

// skipping drops one document's postings: a damaged index to Check.
type skipping struct {
	*Index
	skip uint32
}

func (s skipping) Add(num uint32, doc store.IndexInput) error {
	if num == s.skip {
		return nil
	}
	return s.Index.Add(num, doc)
}

// AddExtracted drops the same document when its postings were extracted
// outside the writer lock.
func (s skipping) AddExtracted(num uint32, x any) error {
	if num == s.skip {
		return nil
	}
	return s.Index.AddExtracted(num, x)
}

func TestCheckFindsMissingPostings(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(dir, &store.Options{NoSync: true, Indexer: skipping{New(), 2}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	put(t, s, ctx, `{"offer_id":"a","n":1}`)
	put(t, s, ctx, `{"offer_id":"b","n":2}`)
	rep, err := Check(ctx, s)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), "misses documents {2}") {
		t.Fatalf("damage not found: %+v", rep)
	}
}

func TestShortNeedle(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	a := put(t, s, ctx, `{"j":["LI","DE"],"s":"ALIX"}`)
	b := put(t, s, ctx, `{"j":["FR"],"s":"xx"}`)
	c := put(t, s, ctx, `{"j":[],"s":"L"}`)
	for needle, want := range map[string][]uint32{"LI": {a.Num}, "x": {b.Num}, "X": {a.Num}, "L": {a.Num, c.Num}, "R": {b.Num}} {
		ids, _ := ix.Paths(canon.MustParsePointer("/**"))
		bm, err := ix.Grams(ids, needle)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range want {
			if !bm.Contains(n) {
				t.Errorf("needle %q misses document %d: %v", needle, n, bm)
			}
		}
		if int(bm.GetCardinality()) != len(want) {
			t.Errorf("needle %q: %v, want %v", needle, bm, want)
		}
	}
}

// TestSortPostingsOrdersAsBytes checks flushSorted's sort: posting keys
// shorter and longer than the 16 prefix bytes it sorts by, sharing
// prefixes or not, come out in the order of their bytes.
func TestSortPostingsOrdersAsBytes(t *testing.T) {
	var tmp []sortedPosting
	rapid.Check(t, func(t *rapid.T) {
		// Shared starts of 20 and 40 bytes make runs of keys that tie on
		// 16 bytes and on 32, long enough to be sorted again by radix.
		starts := [][]byte{nil, bytes.Repeat([]byte{'a'}, 20), bytes.Repeat([]byte{'q'}, 40)}
		keys := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) []byte {
			start := rapid.SampledFrom(starts).Draw(t, "start")
			tail := rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1, 'a', 'q', 0xff}), 0, 4).Draw(t, "tail")
			return append(append([]byte{store.IndexPrefix}, start...), tail...)
		}), 100, 400).Draw(t, "keys")
		ps := make([]sortedPosting, len(keys))
		for i, k := range keys {
			ps[i] = sortedPosting{keyPrefix(k, 0), keyPrefix(k, 8), 0, uint32(i)}
		}
		tmp = sortPostings(ps, tmp, func(p *sortedPosting) []byte { return keys[p.i] }, 0)
		for i := 1; i < len(ps); i++ {
			if a, b := keys[ps[i-1].i], keys[ps[i].i]; bytes.Compare(a, b) > 0 {
				t.Fatalf("%q sorted before %q", a, b)
			}
		}
		seen := map[uint32]bool{}
		for _, p := range ps {
			seen[p.i] = true
		}
		if len(seen) != len(keys) {
			t.Fatalf("sorted %d distinct entries of %d", len(seen), len(keys))
		}
	})
}
