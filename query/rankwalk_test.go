package query

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// rankIntent is a full_set intent for documents whose /g is g.
func rankIntent(t *testing.T, g string) *aql.Intent {
	t.Helper()
	in, err := aql.Parse([]byte(`{"intent_id":"urn:oap:intent:rank","issuer_did":"did:web:rank.example","category":"knowledge",
		"constraints":{"path":"/g","operator":"eq","value":"`+g+`"},"projection":{"include":["/"]},
		"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},"resolution_policy":"full_set",
		"signature":{"alg":"EdDSA","value":"x"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// resolveExplained resolves in through the index, page by page, checks
// each page against the full scan's and returns what explain said of
// the first page's ranking.
func resolveExplained(t *testing.T, s *store.Store, ix *index.Index, in *aql.Intent) *RankChoice {
	t.Helper()
	var first *RankChoice
	cursor := ""
	for page := 0; ; page++ {
		var plan *Plan
		planned, err := Resolve(context.Background(), s, in, &Options{Signer: testSigner(), At: at, Index: ix, PageSize: 3,
			Cursor: cursor, Explain: func(p *Plan) { plan = p }})
		if err != nil {
			t.Fatal(err)
		}
		full, err := Resolve(context.Background(), s, in, &Options{Signer: testSigner(), At: at, PageSize: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := responseJSON(full), responseJSON(planned); a != b {
			t.Fatalf("page %d differs from the full scan\nfull:    %s\nplanner: %s", page, a, b)
		}
		if page == 0 {
			first = plan.Rank
			if first == nil || !strings.Contains(plan.String(), first.Op+"(accepted ") {
				t.Fatalf("explain does not say how the page was ranked:\n%s", plan)
			}
		}
		if cursor = planned.NextCursor; cursor == "" || page == 2 {
			return first
		}
	}
}

// TestRankStrategyByCost: a page of a large share of the store walks the
// rank order; a page of a few documents among many selects them; a walk
// whose documents crowd the end of the order gives up and selects, unless
// the order is flattened, whose walk costs less than the selection. Every
// page is the full scan's.
func TestRankStrategyByCost(t *testing.T) {
	s, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// 1,200 documents: "x" ranks first (scores 2000 down), "few" are 5
	// spread among them, "last" are 100 ranked after every other.
	var docs []store.Document
	for i := range 1200 {
		g, score := "x", canon.Number(fmt.Sprint(2000-i))
		switch {
		case i%200 == 7:
			g = "few"
		case i >= 1100:
			g, score = "last", canon.Number(fmt.Sprintf("-%d.50", i))
		}
		docs = append(docs, store.Document{Body: []byte(fmt.Sprintf(`{"g":%q,"i":%d}`, g, i)), Kind: canon.KindJSON,
			Owner: store.Public, Signals: &canon.Signals{Score: score}})
	}
	if _, err := s.PutBatch(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	if c := resolveExplained(t, s, ix, rankIntent(t, "x")); c.Op != "rank.Walk" || c.Walked > 5 {
		t.Errorf("most of the store: %s, want rank.Walk passing the page and one more", c)
	}
	if c := resolveExplained(t, s, ix, rankIntent(t, "few")); c.Op != "rank.Select" || c.Fallback {
		t.Errorf("5 of 1,200: %s, want rank.Select", c)
	}
	if ix.RankFlat() {
		t.Fatal("the rank order is flattened before walks passed a quarter of it")
	}
	if c := resolveExplained(t, s, ix, rankIntent(t, "last")); c.Op != "rank.Select" || !c.Fallback {
		t.Errorf("100 at the end of the order: %s, want a walk given up for rank.Select", c)
	}
	// A flattened order costs a few nanoseconds a key: walking all 1,200
	// keys to the last 100 is cheaper than selecting them, and the few
	// are still selected.
	if err := ix.Warm(); err != nil || !ix.RankFlat() {
		t.Fatalf("Warm = %v and left the rank order unflattened", err)
	}
	if c := resolveExplained(t, s, ix, rankIntent(t, "last")); c.Op != "rank.Walk" || c.Fallback {
		t.Errorf("100 at the end of a flattened order: %s, want rank.Walk to the end", c)
	}
	if c := resolveExplained(t, s, ix, rankIntent(t, "few")); c.Op != "rank.Select" || c.Fallback {
		t.Errorf("5 of 1,200 in a flattened order: %s, want rank.Select", c)
	}
}

// TestWalkRankDenseMembership: a walk that tests membership in the flat
// bit set (a long walk's, denseWalkSteps) keeps exactly the documents,
// in the same order, that a walk testing the roaring bitmap keeps; and a
// walk of the flattened rank order (index.RankNums) those a walk of its
// B-tree keeps.
func TestWalkRankDenseMembership(t *testing.T) {
	docs := make([]string, 300)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"n":%d}`, i)
	}
	_, ix := openIndexed(t, docs...)
	src, _ := leafIntent(`{"path":"/n","operator":"gte","value":0}`)
	in, err := aql.Parse(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	accepted := roaring.New()
	for n := uint32(0); n < 1000; n += 3 {
		accepted.Add(n)
	}
	accepted.Add(1 << 20) // beyond every document: the set's last word
	walk := func(way rankStrategy) []uint32 {
		od := (&Options{Signer: testSigner(), At: at, PageSize: 1000, rankWith: way}).withDefaults()
		r := newResolution(in, &od)
		out, done, err := r.walkRank(ix, accepted, 1000, 1<<30, &RankChoice{})
		if err != nil || !done {
			t.Fatalf("walk: done %v, %v", done, err)
		}
		nums := make([]uint32, len(out))
		for i, c := range out {
			nums[i] = c.num
		}
		return nums
	}
	if _, flat, err := ix.RankNums(nil); err != nil || flat {
		t.Fatalf("a fresh index's rank order is flattened (%v) before any walk", err)
	}
	plain := walk(rankForceWalk) // over the B-tree, which it walks enough to flatten
	if _, flat, err := ix.RankNums(nil); err != nil || !flat {
		t.Fatalf("the rank order is not flattened (%v) after a walk of all its keys", err)
	}
	dense, flatPlain := walk(rankForceWalkDense), walk(rankForceWalk)
	if !slices.Equal(plain, flatPlain) {
		t.Fatalf("the walks differ:\ntree:      %v\nflattened: %v", plain, flatPlain)
	}
	if len(plain) < 90 {
		t.Fatalf("the walk kept %d documents, want about 100", len(plain))
	}
	for _, n := range plain {
		if !accepted.Contains(n) {
			t.Fatalf("the walk kept document %d, not accepted", n)
		}
	}
	if !slices.Equal(plain, dense) {
		t.Fatalf("the walks differ:\nroaring: %v\ndense:   %v", plain, dense)
	}
}

// TestRankSelectionsFlattenTheOrder: pages that select because the rank
// order is not flattened, though a walk of the flattened order would
// cost less, count toward flattening it; once it is, such a page walks.
func TestRankSelectionsFlattenTheOrder(t *testing.T) {
	s, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// 1,200 documents, 20 of them "mid", spread through the order: a
	// page of 3 selects at rankStepCost and walks at rankFlatStepCost.
	var docs []store.Document
	for i := range 1200 {
		g := "x"
		if i%60 == 13 {
			g = "mid"
		}
		docs = append(docs, store.Document{Body: []byte(fmt.Sprintf(`{"g":%q,"i":%d}`, g, i)), Kind: canon.KindJSON,
			Owner: store.Public, Signals: &canon.Signals{Score: canon.Number(fmt.Sprint(2000 - i))}})
	}
	if _, err := s.PutBatch(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	if c := resolveExplained(t, s, ix, rankIntent(t, "mid")); c.Op != "rank.Select" || c.Fallback {
		t.Fatalf("20 of 1,200, the order not flattened: %s, want rank.Select", c)
	}
	if !ix.RankFlat() {
		t.Fatal("three selected pages that a flattened walk would rank for less left the order unflattened")
	}
	if c := resolveExplained(t, s, ix, rankIntent(t, "mid")); c.Op != "rank.Walk" || c.Fallback {
		t.Fatalf("20 of 1,200, the order flattened: %s, want rank.Walk", c)
	}
}
