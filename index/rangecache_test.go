package index

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/cockroachdb/apd/v3"
	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// TestCachedRangesEqualUncached runs random commits — batches of puts of
// documents with numbers, decimal strings and instants at /v (some
// through arrays, so that some paths cannot be read by their complement),
// deletes, compactions that sweep — with range lookups between them,
// over every document or among some, so that each commit finds range
// answers cached to update. After every commit each cached answer equals
// the range read from the store without the cache; and each lookup
// answers, among the documents it asked about, what that read does.
func TestCachedRangesEqualUncached(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, ix := rapidStore(t, "rangecache")
		ctx := context.Background()
		var live []store.Ref
		seq := 0
		for step := rapid.IntRange(1, 25).Draw(t, "steps"); step > 0; step-- {
			for q := rapid.IntRange(0, 4).Draw(t, "lookups"); q > 0; q-- {
				lookupRange(t, ix, live)
			}
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 6:
				var batch []store.Document
				for n := rapid.IntRange(1, 4).Draw(t, "docs"); n > 0; n-- {
					seq++
					batch = append(batch, store.Document{Body: []byte(drawRangeDoc(t, seq))})
				}
				refs, err := s.PutBatch(ctx, batch)
				if err != nil {
					t.Fatal(err)
				}
				live = append(live, refs...)
			case op < 9 && len(live) > 0:
				i := rapid.IntRange(0, len(live)-1).Draw(t, "victim")
				if err := s.Delete(ctx, live[i]); err != nil {
					t.Fatal(err)
				}
				live = append(live[:i], live[i+1:]...)
			default:
				if err := s.Compact(ctx); err != nil {
					t.Fatal(err)
				}
			}
			checkRangeEntries(t, ix)
		}
	})
}

// drawRangeDoc draws document seq with one value at /v, or two or
// three through an array: small integers (as numbers or decimal strings) and
// instants a day apart, so that ranges often hold most values and are
// read by their complement.
func drawRangeDoc(t *rapid.T, seq int) string {
	value := func(t *rapid.T) string {
		n := rapid.IntRange(0, 12).Draw(t, "n")
		switch rapid.IntRange(0, 2).Draw(t, "type") {
		case 0:
			return fmt.Sprint(n)
		case 1:
			return fmt.Sprintf(`"%d.50"`, n)
		}
		return `"` + rangeDay(n).String() + `"`
	}
	vals := rapid.SliceOfN(rapid.Custom(value), 1, 3).Draw(t, "vals")
	if len(vals) == 1 && rapid.Bool().Draw(t, "scalar") {
		return fmt.Sprintf(`{"k":%d,"v":%s}`, seq, vals[0])
	}
	return fmt.Sprintf(`{"k":%d,"v":[%s]}`, seq, strings.Join(vals, ","))
}

func rangeDay(n int) canon.Instant {
	return canon.Instant{T: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n)}
}

// lookupRange asks a random range of numbers or instants at /v, /v/*
// or both, among every document or some of the live ones, and checks
// the answer among those against the range read without the cache.
func lookupRange(t *rapid.T, ix *Index, live []store.Ref) {
	var ids []uint32
	for _, p := range rapid.SampledFrom([][]string{{"/v"}, {"/v/*"}, {"/v", "/v/*"}}).Draw(t, "paths") {
		found, _ := ix.Paths(canon.MustParsePointer(p))
		ids = append(ids, found...)
	}
	nums := make([]uint32, len(live))
	for i, ref := range live {
		nums[i] = ref.Num
	}
	among := drawWithin(t, nums)
	bound := func(name string) (int, bool) {
		return rapid.IntRange(-1, 13).Draw(t, name), rapid.Bool().Draw(t, name+" open")
	}
	lo, openLo := bound("lo")
	hi, openHi := bound("hi")
	ends := rapid.IntRange(0, 2).Draw(t, "ends") // lo only, hi only, both
	var got Range
	var typ byte
	var loKey, endKey []byte
	var err error
	if rapid.Bool().Draw(t, "instants") {
		lod, hid := rangeDay(lo), rangeDay(hi)
		b := InstantBounds{Lo: &lod, Hi: &hid, OpenLo: openLo, OpenHi: openHi}
		b.Lo, b.Hi = []*canon.Instant{b.Lo, nil, b.Lo}[ends], []*canon.Instant{nil, b.Hi, b.Hi}[ends]
		typ = typeInst
		got, err = ix.InstantRangeIn(ids, b, among)
		loKey, endKey = b.keys()
	} else {
		b := NumberBounds{Lo: apd.New(int64(lo), 0), Hi: apd.New(int64(hi), 0), OpenLo: openLo, OpenHi: openHi}
		b.Lo, b.Hi = []*apd.Decimal{b.Lo, nil, b.Lo}[ends], []*apd.Decimal{nil, b.Hi, b.Hi}[ends]
		typ = typeNumber
		if got, err = ix.NumberRangeIn(ids, b, among); err == nil {
			loKey, endKey, err = b.keys()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := ix.scanRange(ids, typ, loKey, endKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, w := got.Docs, want.Docs
	if among != nil {
		a, w = roaring.And(a, among), roaring.And(w, among)
	}
	if !a.Equals(w) {
		t.Fatalf("range %c [%x, %x) at %v among %v: %v, read without the cache %v", typ, loKey, endKey, ids, among, a.ToArray(), w.ToArray())
	}
}

// checkRangeEntries compares cached range answers, some of them, with
// the range read from the store without the cache, among every
// document; reading an answer applies what commits noted in it.
func checkRangeEntries(t *rapid.T, ix *Index) {
	ix.cache.mu.Lock()
	var entries []rangeResult
	for _, key := range slices.Sorted(maps.Keys(ix.cache.ranges.m)) { // draws in a fixed order
		if rapid.Bool().Draw(t, "read") { // else the next commits add to its pending numbers
			e := ix.cache.ranges.m[key]
			ix.cache.ranges.settle(e)
			entries = append(entries, *e)
		}
	}
	ix.cache.mu.Unlock()
	for _, e := range entries {
		want, _, err := ix.scanRange(e.ids, e.typ, e.lo, e.end, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !e.r.Docs.Equals(want.Docs) {
			t.Fatalf("cached range %c [%x, %x) at %v: %v, the store holds %v", e.typ, e.lo, e.end, e.ids, e.r.Docs.ToArray(), want.Docs.ToArray())
		}
	}
}

// cachedRange returns the cached answer of the range b at ids, nil when
// none is cached.
func cachedRange(t *testing.T, ix *Index, ids []uint32, b NumberBounds) *roaring.Bitmap {
	t.Helper()
	lo, end, err := b.keys()
	if err != nil {
		t.Fatal(err)
	}
	r, ok, _ := ix.cache.getRange(rangeKey(ids, typeNumber, lo, end))
	if !ok {
		return nil
	}
	return r.Docs
}

// TestCommitUpdatesCachedRange: a commit that adds a value inside a
// cached range keeps the entry and adds its document to it, one that
// writes nothing inside it leaves the entry as it was, shared, and a
// delete takes its document out; a lookup then answers from the entry.
func TestCommitUpdatesCachedRange(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	a := put(t, s, ctx, `{"price":5}`)
	b := put(t, s, ctx, `{"price":"50.00"}`)
	ids, _ := paths(t, ix, "/price")
	lte100 := NumberBounds{Hi: apd.New(100, 0)}
	first, err := ix.NumberRange(ids, lte100)
	if err != nil {
		t.Fatal(err)
	}
	if cached := cachedRange(t, ix, ids, lte100); cached != first {
		t.Fatalf("the range's answer %v was not cached (the cache holds %v)", first, cached)
	}
	put(t, s, ctx, `{"price":500,"other":7}`)
	if cached := cachedRange(t, ix, ids, lte100); cached != first {
		t.Errorf("a commit that wrote nothing inside the range replaced its entry: %v, was %v", cached, first)
	}
	c := put(t, s, ctx, `{"price":7}`)
	after := cachedRange(t, ix, ids, lte100)
	if after == nil {
		t.Fatal("a commit inside the range dropped its entry")
	}
	if want := roaring.BitmapOf(a.Num, b.Num, c.Num); !after.Equals(want) {
		t.Errorf("after a put inside the range the entry holds %v, want %v", after.ToArray(), want.ToArray())
	}
	if first.GetCardinality() != 2 {
		t.Errorf("the commit modified the answer a query was given: %v", first.ToArray())
	}
	if err := s.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	after = cachedRange(t, ix, ids, lte100)
	if want := roaring.BitmapOf(b.Num, c.Num); after == nil || !after.Equals(want) {
		t.Fatalf("after a delete the entry holds %v, want %v", after, want.ToArray())
	}
	if got, err := ix.NumberRange(ids, lte100); err != nil || got != after {
		t.Errorf("the lookup after the commits read %v (%v), not the cached entry", got, err)
	}
}

// TestRangeCacheKeepsOnlyAnswersExactAmongAll: a range read by its
// complement among some documents only — a document outside them has
// two values at the path — is not kept, so a reader who sees that
// document gets it from a read of its own.
func TestRangeCacheKeepsOnlyAnswersExactAmongAll(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	multi := put(t, s, ctx, `{"v":[1,50]}`)
	among := roaring.New()
	for _, v := range []int{2, 3, 4, 5, 6, 60} {
		among.Add(put(t, s, ctx, fmt.Sprintf(`{"v":[%d]}`, v)).Num)
	}
	ids, _ := paths(t, ix, "/v/*")
	lte10 := NumberBounds{Hi: apd.New(10, 0)}
	r, err := ix.NumberRangeIn(ids, lte10, among)
	if err != nil {
		t.Fatal(err)
	}
	if r.Complemented == 0 {
		t.Fatal("the range was not read by its complement: the test no longer covers it")
	}
	all, err := ix.NumberRangeIn(ids, lte10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !all.Docs.Contains(multi.Num) {
		t.Errorf("among every document the range misses document %d (1 and 50): %v", multi.Num, all.Docs.ToArray())
	}
}

// TestCachedRangeUnderConcurrentCommits asks a range while another
// goroutine commits documents inside it (run with -race): lookups and
// commits share the cache, and once the writer is done the range holds
// every document.
func TestCachedRangeUnderConcurrentCommits(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	const docs = 200
	put(t, s, ctx, `{"price":0}`)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i < docs; i++ {
			put(t, s, ctx, fmt.Sprintf(`{"k":%d,"price":%d}`, i, i%50))
		}
	}()
	lte := NumberBounds{Hi: apd.New(100, 0)}
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		ids, _ := paths(t, ix, "/price")
		if _, err := ix.NumberRange(ids, lte); err != nil {
			t.Fatal(err)
		}
	}
	ids, _ := paths(t, ix, "/price")
	for range 2 { // the second from the cache
		got, err := ix.NumberRange(ids, lte)
		if err != nil || got.GetCardinality() != docs {
			t.Fatalf("after the writer: the range holds %d documents, want %d (%v)", got.GetCardinality(), docs, err)
		}
	}
}

// TestRangeReadBeforeCommitNotKept: an answer read before a commit, which
// the commit's delta did not update, must not be stored after it.
func TestRangeReadBeforeCommitNotKept(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	put(t, s, ctx, `{"price":1}`)
	ids, _ := paths(t, ix, "/price")
	lo, end, err := NumberBounds{Hi: apd.New(100, 0)}.keys()
	if err != nil {
		t.Fatal(err)
	}
	key := rangeKey(ids, typeNumber, lo, end)
	_, _, gen := ix.cache.getRange(key)
	r, _, err := ix.scanRange(ids, typeNumber, lo, end, nil)
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, ctx, `{"price":2}`) // commits between the read and the store
	ix.cache.putRange(key, &rangeResult{ids: ids, typ: typeNumber, lo: lo, end: end, r: r}, gen)
	if got, ok, _ := ix.cache.getRange(key); ok {
		t.Fatalf("an answer read before a commit was kept after it: %v", got.Docs.ToArray())
	}
}

// TestRangeCacheBounded asks more distinct ranges than the cache keeps:
// it holds at most rangeResultsMax answers, and the bytes it counts are
// those of the answers it holds, also after a commit updated them.
func TestRangeCacheBounded(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	for i := range 20 {
		put(t, s, ctx, fmt.Sprintf(`{"price":%d}`, i))
	}
	ids, _ := paths(t, ix, "/price")
	check := func(when string) {
		t.Helper()
		ix.cache.mu.Lock()
		defer ix.cache.mu.Unlock()
		var sum uint64
		for _, e := range ix.cache.ranges.m {
			sum += e.r.Docs.GetSizeInBytes()
		}
		if n := len(ix.cache.ranges.m); n == 0 || n > rangeResultsMax || sum != ix.cache.ranges.bytes {
			t.Errorf("%s: %d answers of %d bytes, the cache counts %d (at most %d answers)", when, n, sum, ix.cache.ranges.bytes, rangeResultsMax)
		}
	}
	for i := range rangeResultsMax + 50 {
		if _, err := ix.NumberRange(ids, NumberBounds{Hi: apd.New(int64(i), -1)}); err != nil {
			t.Fatal(err)
		}
	}
	check("after the lookups")
	put(t, s, ctx, `{"price":0.5}`)
	check("after a commit")
}

// readNumberRange and readInstantRange are NumberRange and InstantRange
// read from the store as a lookup that misses the cache reads them, for
// the benchmarks of that read.
func (ix *Index) readNumberRange(ids []uint32, b NumberBounds) (*roaring.Bitmap, error) {
	lo, end, err := b.keys()
	if err != nil {
		return nil, err
	}
	r, _, err := ix.scanRange(ids, typeNumber, lo, end, nil)
	return r.Docs, err
}

func (ix *Index) readInstantRange(ids []uint32, b InstantBounds) (*roaring.Bitmap, error) {
	lo, end := b.keys()
	r, _, err := ix.scanRange(ids, typeInst, lo, end, nil)
	return r.Docs, err
}
