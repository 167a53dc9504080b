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
// Only the documents of it that make the list are read and judged (each
// fails the constraints, the plan being conservative), then merged in
// document order with the rejections met among the candidates. The total
// counts every one of them, listed or not.

// listExcluded adds the documents of excluded (the universe the plan left
// out) to the rejections: all to the count, the first ones to the list.
func (r *resolution) listExcluded(ctx context.Context, s *store.Store, excluded *roaring.Bitmap) error {
	r.nReject += int(excluded.GetCardinality())
	if !r.listsRejections() || excluded.IsEmpty() {
		return nil
	}
	want := firstExcluded(r.rejected, excluded, r.o.MaxRejected)
	listed := make([]Rejection, 0, len(r.rejected)+int(want.GetCardinality()))
	for doc, err := range s.FetchLent(ctx, want, false, nil) {
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

// firstExcluded returns the documents of excluded among the first limit
// of the merged document order of excluded and listed (sorted by number).
func firstExcluded(listed []Rejection, excluded *roaring.Bitmap, limit int) *roaring.Bitmap {
	want := roaring.New()
	it := excluded.Iterator()
	for i, n := 0, 0; n < limit && it.HasNext(); n++ {
		if i < len(listed) && listed[i].num < it.PeekNext() {
			i++
			continue
		}
		want.Add(it.Next())
	}
	return want
}

// listsRejections reports whether this response lists rejections at all:
// not on a continuation page, nor under a negative cap.
func (r *resolution) listsRejections() bool {
	return r.cursor == nil && r.o.MaxRejected > 0
}
