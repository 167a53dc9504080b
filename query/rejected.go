package query

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/store"
)

// Rejections the plan excluded. RFC 0020 A.3 (R3) gives every rejected
// candidate a decision record naming the failing predicate, so the
// rejected list cannot depend on the plan: a full scan lists the first
// MaxRejected rejected documents in document order, and so must the
// planner, though it never judged the documents its bitmaps excluded.
//
// The bitmaps give that set and its size for free: universe − candidates.
// The set itself is never built (a universe of a million documents is
// sixteen containers, each copied to subtract a few candidates): its size
// is the universe's less the candidates in it, and its first documents
// are met walking the universe past the candidates. Only the documents of
// it that make the list are read and judged (each fails the constraints,
// the plan being conservative), then merged in document order with the
// rejections met among the candidates. The total counts every one of
// them, listed or not.

// listExcluded adds the documents of universe − candidates (those the
// plan left out) to the rejections: all to the count, the first ones to
// the list.
func (r *resolution) listExcluded(ctx context.Context, s *store.Store, universe, candidates *roaring.Bitmap) error {
	r.nReject += excludedCount(universe, candidates)
	if !r.listsRejections() {
		return nil
	}
	want := firstExcluded(r.rejected, excludedIter(universe, candidates), r.o.MaxRejected)
	if want.IsEmpty() {
		return nil
	}
	listed := make([]Rejection, 0, len(r.rejected)+int(want.GetCardinality()))
	for doc, err := range s.FetchLent(ctx, want, adjacent(want), nil) {
		if err != nil {
			return fmt.Errorf("query: %w", err)
		}
		_, rej, err := r.judge(doc, true)
		if err != nil {
			return err
		}
		if rej == nil {
			return fmt.Errorf("query: document %d satisfies the constraints but the plan excluded it (a planner fault)", doc.Num)
		}
		r.nEval++
		listed = append(listed, *rej)
	}
	listed = append(listed, r.rejected...)
	slices.SortFunc(listed, func(a, b Rejection) int { return cmp.Compare(a.num, b.num) })
	r.rejected = listed[:min(len(listed), r.o.MaxRejected)]
	return nil
}

// excludedCount is the size of universe − set, without building it.
func excludedCount(universe, set *roaring.Bitmap) int {
	return int(universe.GetCardinality() - universe.AndCardinality(set))
}

// adjacent reports whether the documents of want lie close together,
// as the first excluded documents mostly do (a point query lists the
// store's first ten): one cursor then steps from record to record rather
// than seeking each, which in every level of the store costs more than a
// step over a record between two of them.
func adjacent(want *roaring.Bitmap) bool {
	n := want.GetCardinality()
	return n > 1 && uint64(want.Maximum()-want.Minimum()) < 2*n
}

// excluded walks the documents of a universe not in a set, in document
// order, without building the difference: each step skips the set's
// documents it meets, so a walk costs the documents it yields and the
// set's documents before the last of them. Where the set holds nearly
// all of the universe, the excluded documents are few and may come late
// (skipping a million documents to find the last ten cost 56 ms, the
// difference 6 µs): after excludedWalkMax skips the walk builds the
// difference, as roaring.AndNot makes it, and goes on in it.
type excluded struct {
	u, set       roaring.IntPeekable
	universe, in *roaring.Bitmap
	skips        int
	diff         roaring.IntPeekable // universe − set, once the skips passed excludedWalkMax
}

// excludedWalkMax bounds the documents of the set an excluded walk skips
// one by one (about 30 ns each) before it builds the difference (a few
// µs for a million-document universe). A variable for tests.
var excludedWalkMax = 512

func excludedIter(universe, set *roaring.Bitmap) *excluded {
	return &excluded{u: universe.Iterator(), set: set.Iterator(), universe: universe, in: set}
}

// HasNext reports whether a document is left, moving past the set's.
func (e *excluded) HasNext() bool {
	if e.diff != nil {
		return e.diff.HasNext()
	}
	for e.u.HasNext() {
		x := e.u.PeekNext()
		e.set.AdvanceIfNeeded(x)
		if !e.set.HasNext() || e.set.PeekNext() != x {
			return true
		}
		if e.skips++; e.skips > excludedWalkMax {
			e.diff = roaring.AndNot(e.universe, e.in).Iterator()
			e.diff.AdvanceIfNeeded(x) // x is in the set: the difference goes on after it
			return e.diff.HasNext()
		}
		e.u.Next()
	}
	return false
}

// PeekNext returns the next document; only after HasNext said there is one.
func (e *excluded) PeekNext() uint32 {
	if e.diff != nil {
		return e.diff.PeekNext()
	}
	return e.u.PeekNext()
}

// Next returns the next document and moves past it; only after HasNext.
func (e *excluded) Next() uint32 {
	if e.diff != nil {
		return e.diff.Next()
	}
	return e.u.Next()
}

// firstExcluded returns the documents of excluded among the first limit
// of the merged document order of excluded and listed (sorted by number).
func firstExcluded(listed []Rejection, excluded interface {
	HasNext() bool
	PeekNext() uint32
	Next() uint32
}, limit int) *roaring.Bitmap {
	want := roaring.New()
	for i, n := 0, 0; n < limit && excluded.HasNext(); n++ {
		if i < len(listed) && listed[i].num < excluded.PeekNext() {
			i++
			continue
		}
		want.Add(excluded.Next())
	}
	return want
}

// listsRejections reports whether this response lists rejections at all:
// not on a continuation page, nor under a negative cap.
func (r *resolution) listsRejections() bool {
	return r.cursor == nil && r.o.MaxRejected > 0
}
