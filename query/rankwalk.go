package query

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
)

// Ranking a lazy page. The accepted candidates of an exact plan are known
// from bitmaps; what remains is their order. Two ways to the page:
//
//   - rank.Walk walks the index's rank order (index.WalkRank), which is
//     the resolver's order, keeps the accepted documents and stops once
//     the page is full. Its cost is one cheap key step per document it
//     passes: about want × all / accepted when the accepted documents are
//     spread through the order.
//   - rank.Select makes every accepted candidate's rank key from its
//     score and candidate id in the store's columns (store.Headers, no
//     record read) and keeps the first ones in a bounded heap: one key
//     and, mostly, one comparison per accepted candidate.
//
// The choice compares the two estimates. A walk that passes more keys
// than the selection would have cost (the accepted documents crowd the
// end of the order) gives up and selects, so a wrong estimate costs at
// most twice the selection. Either way the page is the one after the
// cursor, so a next page costs what the first does.

// rankStepCost is one step of the walk in units of what rank.Select
// spends on one accepted candidate. Measured on 100,000 manifests, warm
// (BenchmarkRankPage, a 2-core machine shared with other work): a walk
// step over the in-memory order 56–93 ns; a selection 410–490 ns per
// accepted candidate, most of it cache misses on the columns' scores and
// candidate ids. Both grow little with the store, so at a million
// documents a page ranks in about a millisecond at worst, where the two
// estimates meet (accepted ≈ √(want · documents · rankStepCost)).
const rankStepCost = 0.15

// rankFlatStepCost is rankStepCost once the rank order is flattened
// (index.RankFlat): a walk step over the array then cost 5.8 ns (a 0.1%
// page walking all 100,000 keys of BenchmarkRankPage), against 350–450
// ns a selection spends on each accepted candidate.
const rankFlatStepCost = 0.02

// denseWalkSteps is the walk estimate from which walkRank tests the
// accepted candidates in a flat bit set (one bit per document number up
// to the largest accepted, 128 KiB at a million) rather than in their
// roaring bitmap: at 1,000,000 manifests a 1% page walks about 10,000
// keys, and the set costs less to build than roaring's Contains spends
// on them.
const denseWalkSteps = 2048

// rankStrategy forces a strategy in tests; zero chooses by cost.
type rankStrategy int

const (
	rankByCost rankStrategy = iota
	rankForceWalk
	rankForceSort
	rankForceWalkDense // a walk that tests membership in the flat bit set
)

// The two strategies' names in explain.
const (
	rankWalkOp   = "rank.Walk"
	rankSelectOp = "rank.Select"
)

// RankChoice is how a lazy resolution ranked its page, for explain.
type RankChoice struct {
	Op           string // rank.Walk or rank.Select
	Accepted     uint64 // candidates accepted from the bitmaps
	WalkEstimate uint64 // rank keys the walk was expected to pass
	Walked       uint64 // rank keys it passed (0 for a sort without a walk)
	Fallback     bool   // the walk passed its limit and the page was selected
}

func (c *RankChoice) String() string {
	s := fmt.Sprintf("%s(accepted %d, walk est %d", c.Op, c.Accepted, c.WalkEstimate)
	if c.Walked > 0 {
		s += fmt.Sprintf(", walked %d", c.Walked)
	}
	if c.Fallback {
		s += ", gave up the walk"
	}
	return s + ")"
}

// rankWant is how many accepted candidates in rank order the page needs:
// the page, and for full_set one more, which says whether a next page
// exists.
func (r *resolution) rankWant() int {
	if r.in.ResolutionPolicy == "single_best" {
		return 1
	}
	return r.o.PageSize + 1
}

// pageLen is how many candidates the page holds at most.
func (r *resolution) pageLen() int {
	if r.in.ResolutionPolicy == "single_best" {
		return 1
	}
	return r.o.PageSize
}

// chooseRank estimates both strategies for accepted among all indexed
// documents, a walk step costing stepCost selections (rankStepCost, or
// rankFlatStepCost over a flattened order); walk reports whether to
// walk, limit how many keys it may pass.
func (r *resolution) chooseRank(accepted, all uint64, stepCost float64) (choice *RankChoice, walk bool, limit uint64) {
	want := uint64(r.rankWant())
	est := all
	if accepted > 0 {
		est = min(all, want*all/accepted+want)
	}
	choice = &RankChoice{Op: rankSelectOp, Accepted: accepted, WalkEstimate: est}
	limit = uint64(float64(accepted) / stepCost)
	switch r.o.rankWith {
	case rankForceWalk, rankForceWalkDense:
		walk, limit = true, all+1
	case rankForceSort:
		walk = false
	default:
		walk = float64(est)*stepCost < float64(accepted)
	}
	if walk {
		choice.Op = rankWalkOp
	}
	return choice, walk, limit
}

// walkRank returns up to want accepted candidates in rank order, after
// the cursor when there is one; done is false when the walk passed limit
// keys first (the candidates are then to be sorted instead). The
// candidates hold only their numbers until the page is judged.
func (r *resolution) walkRank(ix *index.Index, accepted *roaring.Bitmap, want int, limit uint64, c *RankChoice) (out []*Candidate, done bool, err error) {
	var after []byte
	if cur := r.cursor; cur != nil {
		if after, err = index.AppendRankKey(nil, cur.score, cur.id, cur.num); err != nil {
			return nil, false, fmt.Errorf("%w: malformed score", ErrBadCursor)
		}
	}
	var dense []uint64
	if c.WalkEstimate >= denseWalkSteps || r.o.rankWith == rankForceWalkDense {
		// A long walk tests many keys: a flat bit set answers each
		// with one load instead of roaring's container search.
		set := denseSets.Get().(*[]uint64)
		defer denseSets.Put(set)
		dense = denseOf(set, accepted)
	}
	contains := func(num uint32) bool {
		if dense == nil {
			return accepted.Contains(num)
		}
		w := num >> 6
		return int(w) < len(dense) && dense[w]&(1<<(num&63)) != 0
	}
	slab := make([]Candidate, 0, want) // the page's candidates, in one allocation
	keep := func(num uint32) {
		slab = append(slab, Candidate{num: num})
		out = append(out, &slab[len(slab)-1])
	}
	done = true
	nums, flat, err := ix.RankNums(after)
	if err != nil {
		return nil, false, err
	}
	if flat {
		// The order as an array: the loop is the walk, no call a key.
		for _, num := range nums {
			if c.Walked++; contains(num) {
				if keep(num); len(out) == want {
					break
				}
			}
			if c.Walked >= limit {
				done = false
				break
			}
		}
		return out, done, nil
	}
	err = ix.WalkRank(after, func(num uint32) (bool, error) {
		if c.Walked++; contains(num) {
			keep(num)
		}
		if len(out) < want && c.Walked >= limit {
			done = false
		}
		return done && len(out) < want, nil
	})
	return out, done, err
}

// denseSets keep the flat bit sets long walks test membership in: 128
// KiB at a million documents, not worth allocating and collecting for
// every page.
var denseSets = sync.Pool{New: func() any { return new([]uint64) }}

// denseOf writes bm into *set as a flat bit set (bit n of word n/64 for
// document n), growing it as needed, and returns it.
func denseOf(set *[]uint64, bm *roaring.Bitmap) []uint64 {
	n := int(bm.DenseSize())
	if cap(*set) < n {
		*set = make([]uint64, n)
	}
	d := (*set)[:n]
	clear(d)
	bm.WriteDenseTo(d)
	return d
}

// selectRank returns up to want accepted candidates in rank order after
// the cursor, chosen by their rank keys (index.AppendRankKey) in a heap
// that keeps the want first: a candidate that ranks after every kept one
// costs its key and one comparison. keyed is false, and out nil, when a
// score makes no rank key (not a number; an index refuses such scores,
// so only a store indexed otherwise has one).
func (r *resolution) selectRank(ctx context.Context, s *store.Store, accepted *roaring.Bitmap, want int) (out []*Candidate, keyed bool, err error) {
	var after []byte
	if cur := r.cursor; cur != nil {
		if after, err = index.AppendRankKey(nil, cur.score, cur.id, cur.num); err != nil {
			return nil, false, fmt.Errorf("%w: malformed score", ErrBadCursor)
		}
	}
	h := make(rankHeap, 0, want)
	var key []byte
	for hd, err := range s.Headers(ctx, accepted) {
		if err != nil {
			return nil, false, err
		}
		if key, err = index.AppendRankKey(key[:0], hd.Score, hd.CandidateID, hd.Num); err != nil {
			return nil, false, nil
		}
		switch {
		case after != nil && bytes.Compare(key, after) <= 0:
		case len(h) < want:
			heap.Push(&h, rankKeyed{key: bytes.Clone(key), c: &Candidate{CandidateID: hd.CandidateID, Score: hd.Score, num: hd.Num}})
		case want > 0 && bytes.Compare(key, h[0].key) < 0:
			h[0].key = append(h[0].key[:0], key...)
			*h[0].c = Candidate{CandidateID: hd.CandidateID, Score: hd.Score, num: hd.Num}
			heap.Fix(&h, 0)
		}
	}
	slices.SortFunc(h, func(a, b rankKeyed) int { return bytes.Compare(a.key, b.key) })
	out = make([]*Candidate, len(h))
	for i := range h {
		out[i], h[i].c.rankKey = h[i].c, h[i].key
	}
	return out, true, nil
}

// rankHeap is a heap of candidates whose root ranks last.
type rankHeap []rankKeyed

func (h rankHeap) Len() int           { return len(h) }
func (h rankHeap) Less(i, j int) bool { return bytes.Compare(h[i].key, h[j].key) > 0 }
func (h rankHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)        { *h = append(*h, x.(rankKeyed)) }
func (h *rankHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
