package index

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// TestCachedPostingsFollowCommits reads the cached families (kind, owner,
// every document, existence) between puts and deletes: a cached bitmap
// must never outlive the commit that changed it, and one read twice
// between commits is shared, not copied.
func TestCachedPostingsFollowCommits(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	count := func(what string, want uint64) {
		t.Helper()
		kinds, err := ix.Kinds([]canon.Kind{canon.KindOffer})
		if err != nil {
			t.Fatal(err)
		}
		owners, err := ix.Owners([]string{store.Public})
		if err != nil {
			t.Fatal(err)
		}
		all, err := ix.All()
		if err != nil {
			t.Fatal(err)
		}
		ids, _ := paths(t, ix, "/offer_id")
		exists, err := ix.Exists(ids)
		if err != nil {
			t.Fatal(err)
		}
		visible, err := ix.Public([]canon.Kind{canon.KindManifest, canon.KindOffer})
		if err != nil {
			t.Fatal(err)
		}
		for name, got := range map[string]uint64{"kind": kinds.GetCardinality(), "owner": owners.GetCardinality(),
			"all": all.GetCardinality(), "exists": exists.GetCardinality(), "public": visible.GetCardinality()} {
			if got != want {
				t.Errorf("%s: %s has %d documents, want %d", what, name, got, want)
			}
		}
		again, err := ix.All()
		if err != nil {
			t.Fatal(err)
		}
		if again != all {
			t.Errorf("%s: the every-document bitmap was copied, not shared from the cache", what)
		}
		if v, err := ix.Public([]canon.Kind{canon.KindManifest, canon.KindOffer}); err != nil || v != visible {
			t.Errorf("%s: the public documents were computed again, not shared from the cache (%v)", what, err)
		}
		if v, err := ix.Public([]canon.Kind{canon.KindManifest}); err != nil || !v.IsEmpty() {
			t.Errorf("%s: public manifests: %v, %v; want none (another key's entry answered)", what, v, err)
		}
	}
	count("empty", 0)
	a := put(t, s, ctx, `{"offer_id":"a"}`)
	count("after one put", 1)
	count("read again (cached)", 1)
	put(t, s, ctx, `{"offer_id":"b"}`)
	count("after a second put", 2)
	if err := s.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	count("after a delete", 1)
}

// TestPathsMemoFollowsDictionary asks for a wildcard pointer's paths
// before and after documents add paths it matches: a remembered answer
// must never hide a path committed later.
func TestPathsMemoFollowsDictionary(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	count := func(want int) {
		t.Helper()
		for range 2 { // the second answer comes from the memo
			if ids, _ := paths(t, ix, "/a/*/b"); len(ids) != want {
				t.Fatalf("/a/*/b matches %d paths, want %d", len(ids), want)
			}
		}
	}
	count(0)
	put(t, s, ctx, `{"a":{"x":{"b":1}}}`)
	count(1)
	put(t, s, ctx, `{"a":{"y":{"b":1},"x":{"b":2}}}`)
	count(2)
	put(t, s, ctx, `{"a":[{"b":1}]}`)
	count(3)
}

// TestCachesUnderConcurrentCommits runs lookups that go through both
// caches while another goroutine commits documents with new paths: run
// with -race. When the writer is done, every lookup sees every document.
func TestCachesUnderConcurrentCommits(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	const docs = 200
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range docs {
			put(t, s, ctx, fmt.Sprintf(`{"offer_id":"o-%d","p%d":{"v":%d}}`, i, i%7, i))
		}
	}()
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		if _, err := ix.Kinds([]canon.Kind{canon.KindOffer}); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Public([]canon.Kind{canon.KindOffer}); err != nil {
			t.Fatal(err)
		}
		paths(t, ix, "/*/v")
	}
	if v, err := ix.Public([]canon.Kind{canon.KindOffer}); err != nil || v.GetCardinality() != docs {
		t.Fatalf("after the writer: %v public offers (%v), want %d", v.GetCardinality(), err, docs)
	}
	kinds, err := ix.Kinds([]canon.Kind{canon.KindOffer})
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := paths(t, ix, "/*/v")
	exists, err := ix.Exists(ids)
	if err != nil {
		t.Fatal(err)
	}
	if kinds.GetCardinality() != docs || exists.GetCardinality() != docs || len(ids) != 7 {
		t.Fatalf("after the writer: %d offers, %d with /*/v over %d paths; want %d, %d, 7",
			kinds.GetCardinality(), exists.GetCardinality(), len(ids), docs, docs)
	}
}

// TestUnionLeavesCachedPostings unites cached posting lists: the union
// must be a new bitmap, the lists it read unchanged for the next query.
func TestUnionLeavesCachedPostings(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	put(t, s, ctx, `{"offer_id":"a"}`)
	put(t, s, ctx, `{"node_id":"b"}`)
	put(t, s, ctx, `{"node_id":"c"}`)
	for range 3 {
		for _, tc := range []struct {
			kinds []canon.Kind
			want  uint64
		}{{[]canon.Kind{canon.KindOffer}, 1}, {[]canon.Kind{canon.KindOffer, canon.KindKnowledge}, 3},
			{[]canon.Kind{canon.KindKnowledge}, 2}, {[]canon.Kind{canon.KindKnowledge, canon.KindOffer, canon.KindManifest}, 3}} {
			bm, err := ix.Kinds(tc.kinds)
			if err != nil {
				t.Fatal(err)
			}
			if got := bm.GetCardinality(); got != tc.want {
				t.Fatalf("kinds %v: %d documents, want %d: a union changed a cached list", tc.kinds, got, tc.want)
			}
		}
	}
}

// TestSharedPostingsConcurrentReads has many queries read the same cached
// lists at once, as the planner does (unions, intersections, counts,
// iteration); `make race` checks that reading a shared bitmap writes
// nothing in it, and every reader must see the same counts throughout.
func TestSharedPostingsConcurrentReads(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	for i := range 50 {
		put(t, s, ctx, fmt.Sprintf(`{"offer_id":"o%d"}`, i))
		put(t, s, ctx, fmt.Sprintf(`{"node_id":"n%d"}`, i))
	}
	kinds := []canon.Kind{canon.KindOffer, canon.KindKnowledge}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				offers, err := ix.Kinds(kinds[:1])
				if err != nil {
					errs <- err
					return
				}
				both, _ := ix.Kinds(kinds)
				public, _ := ix.Owners([]string{store.Public})
				all, _ := ix.All()
				n := 0
				for it := offers.Iterator(); it.HasNext(); it.Next() {
					n++
				}
				got := []uint64{offers.GetCardinality(), both.GetCardinality(), roaring.And(public, both).GetCardinality(),
					roaring.FastOr(offers, all).GetCardinality(), roaring.FastAnd(offers, public, all).GetCardinality(),
					all.AndCardinality(offers), uint64(n)}
				if !slices.Equal(got, []uint64{50, 100, 100, 100, 50, 50, 50}) {
					errs <- fmt.Errorf("counts %v", got)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestCommitKeepsUntouchedEntries: a commit updates the cached posting
// lists it wrote and leaves the others as they were, shared, not read
// again; the public universe follows its parts without being recomputed
// from the store.
func TestCommitKeepsUntouchedEntries(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	put(t, s, ctx, `{"node_id":"k1","x":1}`)
	knowledge, err := ix.Kinds([]canon.Kind{canon.KindKnowledge})
	if err != nil {
		t.Fatal(err)
	}
	offers, err := ix.Kinds([]canon.Kind{canon.KindOffer})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Public([]canon.Kind{canon.KindOffer}); err != nil {
		t.Fatal(err)
	}
	put(t, s, ctx, `{"offer_id":"o1","x":2}`)
	if again, err := ix.Kinds([]canon.Kind{canon.KindKnowledge}); err != nil || again != knowledge {
		t.Errorf("the knowledge postings, which the offer's commit did not touch, were not kept (%v)", err)
	}
	now, err := ix.Kinds([]canon.Kind{canon.KindOffer})
	if err != nil || now == offers || now.GetCardinality() != 1 || offers.GetCardinality() != 0 {
		t.Errorf("offers: %v before (must be left as it was), %v after, want the commit's copy with 1 (%v)", offers, now, err)
	}
	if v, gen := ix.cache.get(publicKey([]canon.Kind{canon.KindOffer})); v == nil || v.GetCardinality() != 1 {
		t.Errorf("the public offers were not updated in the cache: %v (generation %d)", v, gen)
	}
}
