package query

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/store"
)

// Lazy pages. When the plan is exact, every candidate satisfies the
// constraints, so which candidates are accepted, how many, and in what
// order they rank can be known without reading their bodies: a candidate
// is rejected only by a projection failure (R4), and the index says which
// documents have a value at each include path. The resolution then ranks
// the accepted candidates — walking the index's rank order to the end of
// the page, or sorting them by the store's columns (rankwalk.go) — and reads
// and judges the bodies of one page, plus the rejections it lists.
//
// The index's word is checked, not trusted: if a judged document is not
// what the index said (an include path the index counted as present
// resolves to nothing, say), the resolution starts again the ordinary
// way, judging every candidate. The answer is always the full scan's.
//
// A budget is allotted along the rank order from the first candidate,
// so on a first page (single_best, or full_set without a cursor) it
// needs the costs of the page's candidates only, which judging the page
// reads: the page is allotted after it is filled (respond). A later page
// would need the cost of every candidate before it, so it judges every
// candidate, as does a resolution with a quality floor (which judges
// along the whole ranking), ranked_set or a first full_set page that
// holds every candidate (each would be judged anyway), or a lossy plan.

// errLazyMiss ends a lazy resolution whose documents disagreed with the
// index; Resolve then resolves again without it.
var errLazyMiss = errors.New("query: lazy page: documents disagree with the index")

// lazyPages and lazyMisses count lazy resolutions and those that had to
// start again; the differential test reads them to show the lazy path
// was taken.
var lazyPages, lazyMisses atomic.Int64

// lazyState is what a lazy resolution needs to fill its page.
type lazyState struct {
	ctx context.Context
	s   *store.Store
	// The visible documents not accepted (the plan excluded them or the
	// projection refuses them) are universe − accepted, walked only when a
	// page lists rejections (excludedIter): at 99.9% of a million
	// documents building the difference costs more than the plan. Both
	// may be the plan's own bitmaps: read them, never change them.
	universe, accepted *roaring.Bitmap
	walked             bool // r.accepted is the page (and one more) in rank order, not yet judged (rankwalk.go)
}

// rankPage fills r.accepted in rank order with the page, and one more,
// after the cursor: by walking the rank order, or by selecting the first
// of the accepted candidates by their rank keys, made from the store's
// columns, whichever plan.Rank says is cheaper (rankwalk.go). It reports
// whether r.accepted is that page (always, unless a score has no rank
// key: then it holds every accepted candidate, to be sorted).
func (r *resolution) rankPage(ctx context.Context, s *store.Store, plan *Plan, accepted *roaring.Bitmap) (bool, error) {
	all, err := r.o.Index.All()
	if err != nil {
		return false, err
	}
	flat, stepCost := r.o.Index.RankFlat(), rankStepCost
	if flat {
		stepCost = rankFlatStepCost
	}
	choice, walk, limit := r.chooseRank(accepted.GetCardinality(), all.GetCardinality(), stepCost)
	plan.Rank = choice
	if walk {
		page, done, err := r.walkRank(r.o.Index, accepted, r.rankWant(), limit, choice)
		if err != nil || done {
			r.accepted = page
			return done, err
		}
		choice.Op, choice.Fallback = rankSelectOp, true
	} else if !flat && float64(choice.WalkEstimate)*rankFlatStepCost < float64(choice.Accepted) {
		// A walk of the flattened order would have been cheaper: count
		// its steps toward flattening it, or it never would be.
		if err := r.o.Index.CountRankSteps(int(choice.WalkEstimate)); err != nil {
			return false, err
		}
	}
	page, keyed, err := r.selectRank(ctx, s, accepted, r.rankWant())
	if err != nil || keyed {
		r.accepted = page
		return keyed, err
	}
	// A score without a rank key: every accepted candidate, from the
	// columns, for rankOrder to sort by compareRank. No record is read;
	// the page's candidates get their costs when fillPage judges them
	// (this path never allots a budget).
	for h, err := range s.Headers(ctx, accepted) {
		if err != nil {
			return false, err
		}
		r.accepted = append(r.accepted, &Candidate{CandidateID: h.CandidateID, Score: h.Score, num: h.Num})
	}
	return false, nil
}

// tryLazy fills r.accepted from the candidates' records when the plan
// allows it, and reports whether it did.
func (r *resolution) tryLazy(ctx context.Context, s *store.Store, plan *Plan) (bool, error) {
	if r.noLazy || !planExact(plan) || (r.in.Budget != nil && r.cursor != nil) || len(r.in.QualityFloor) > 0 ||
		r.in.ResolutionPolicy == "ranked_set" {
		return false, nil
	}
	accepted := plan.Candidates // replaced by each intersection, never changed: the plan's may be a cache's
	for _, p := range r.in.Projection.Include {
		if p.IsRoot() {
			continue // the whole document: never missing
		}
		ids, exact, err := r.o.Index.PathsContext(ctx, p)
		if err != nil || !exact {
			return false, err
		}
		has, err := r.o.Index.Exists(ids)
		if err != nil {
			return false, err
		}
		accepted = roaring.And(accepted, has)
	}
	if r.in.ResolutionPolicy == "full_set" && r.cursor == nil && accepted.GetCardinality() <= uint64(r.o.PageSize) {
		return false, nil // one page holds them all: judging each once is cheaper than ranking first
	}
	walked, err := r.rankPage(ctx, s, plan, accepted)
	if err != nil {
		return false, err
	}
	// Every visible document not accepted is rejected, whether the plan
	// excluded it or the projection refuses it; the page lists the first
	// of them in document order, as the full scan does (rejected.go).
	r.nReject = excludedCount(plan.Universe, accepted)
	r.lazy = &lazyState{ctx: ctx, s: s, universe: plan.Universe, accepted: accepted, walked: walked}
	lazyPages.Add(1)
	return true, nil
}

// planExact reports whether the plan's candidates are exactly the
// documents that satisfy the constraints.
func planExact(plan *Plan) bool { return plan.Root == nil || plan.Root.Exact }

// fillPage judges the bodies of the page's candidates and of the
// rejections the response lists; errLazyMiss when one is not what the
// index said.
func (r *resolution) fillPage(page []*Candidate) error {
	l := r.lazy
	want := roaring.New()
	byNum := make(map[uint32]*Candidate, len(page))
	for _, c := range page {
		want.Add(c.num)
		byNum[c.num] = c
	}
	listRejected := r.keepsRejections()
	if listRejected && r.nReject > 0 {
		// universe − accepted, not built (rejected.go)
		want.Or(firstExcluded(nil, excludedIter(l.universe, l.accepted), r.o.MaxRejected))
	}
	seen := 0
	for v, err := range r.judgeAll(l.ctx, l.s, want) {
		if err != nil {
			return err
		}
		seen++
		c, rej := v.c, v.rej
		r.nEval++
		slot, onPage := byNum[v.num]
		switch {
		case onPage && c != nil:
			rank := slot.Rank
			*slot = *c
			slot.Rank = rank
		case !onPage && rej != nil:
			r.rejected = append(r.rejected, *rej)
		default:
			lazyMisses.Add(1)
			return errLazyMiss
		}
	}
	if seen != int(want.GetCardinality()) {
		lazyMisses.Add(1)
		return errLazyMiss // deleted since the headers were read
	}
	return nil
}
