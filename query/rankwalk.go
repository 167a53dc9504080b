package query

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/index"
)

// Ranking a lazy page. The accepted candidates of an exact plan are known
// from bitmaps; what remains is their order. Two ways to the page:
//
//   - rank.Walk walks the index's rank order (index.WalkRank), which is
//     the resolver's order, keeps the accepted documents and stops once
//     the page is full. Its cost is one cheap key step per document it
//     passes: about want × all / accepted when the accepted documents are
//     spread through the order.
//   - rank.Sort takes every accepted candidate's score and candidate id
//     from the store's columns (store.Headers, no record read) and sorts.
//
// The choice compares the two estimates. A walk that passes more keys
// than the sort would have cost (the accepted documents crowd the end of
// the order) gives up and sorts, so a wrong estimate costs at most twice
// the sort.

// rankStepCost is one step of the walk in units of one record read, as
// the sort cost before the store kept its columns in memory; the sort now
// costs a column read and its share of the sort's comparisons, which parse
// decimal scores, and the constant has not been measured again since.
// Measured on 20,000 manifests with a warm cache (2-core machine): a walk
// step 0.19 µs; a record read 3.1 µs when every document is read in
// order, 7–9 µs when one in a hundred is. 0.05 sides with the sort; on a
// store larger than the cache a record read costs a block decode
// (30–40 µs at 1M), and the walk wins more often than this says.
const rankStepCost = 0.05

// rankStrategy forces a strategy in tests; zero chooses by cost.
type rankStrategy int

const (
	rankByCost rankStrategy = iota
	rankForceWalk
	rankForceSort
)

// RankChoice is how a lazy resolution ranked its page, for explain.
type RankChoice struct {
	Op           string // rank.Walk or rank.Sort
	Accepted     uint64 // candidates accepted from the bitmaps
	WalkEstimate uint64 // rank keys the walk was expected to pass
	Walked       uint64 // rank keys it passed (0 for a sort without a walk)
	Fallback     bool   // the walk passed its limit and the page was sorted
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
// documents; walk reports whether to walk, limit how many keys it may pass.
func (r *resolution) chooseRank(accepted, all uint64) (choice *RankChoice, walk bool, limit uint64) {
	want := uint64(r.rankWant())
	est := all
	if accepted > 0 {
		est = min(all, want*all/accepted+want)
	}
	choice = &RankChoice{Op: "rank.Sort", Accepted: accepted, WalkEstimate: est}
	limit = uint64(float64(accepted) / rankStepCost)
	switch r.o.rankWith {
	case rankForceWalk:
		walk, limit = true, all+1
	case rankForceSort:
		walk = false
	default:
		walk = float64(est)*rankStepCost < float64(accepted)
	}
	if walk {
		choice.Op = "rank.Walk"
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
	done = true
	err = ix.WalkRank(after, func(num uint32) (bool, error) {
		if c.Walked++; accepted.Contains(num) {
			out = append(out, &Candidate{num: num})
		}
		if len(out) < want && c.Walked >= limit {
			done = false
		}
		return done && len(out) < want, nil
	})
	return out, done, err
}
