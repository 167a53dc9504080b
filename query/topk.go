package query

import (
	"bytes"
	"container/heap"
	"context"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/project"
	"github.com/aqlstore/aqlstore/store"
)

// A page of a full scan. Without an index every visible document of the
// intent's kinds is judged, but a page (single_best, or a full_set page)
// shows only the first few accepted candidates in rank order. The scan
// keeps those in a bounded heap by their rank keys (index.AppendRankKey):
// an accepted candidate costs its match, its quality floor, a projection
// into a scratch buffer (which says whether R4 accepts it) and its rank
// key; only the page's candidates are judged in full, for their records
// and payloads, once the scan is done (fillTop). The totals are every
// document's, as before.
//
// A budget is allotted along the whole rank order, and ranked_set shows
// every candidate: both keep the ordinary path. So does a score without
// a rank key (not a number), which restarts the resolution without the
// heap, as does a page document that changed between the scan and its
// fill.

// topState is a full scan's bounded heap.
type topState struct {
	ctx     context.Context
	s       *store.Store
	want    int
	after   []byte // the cursor's rank key; nil on a first page
	h       rankHeap
	key     []byte
	scratch []byte // projections that only say whether R4 accepts
}

// startTop sets up the bounded heap when the resolution is a page of a
// full scan and the ordinary path is not required.
func (r *resolution) startTop(ctx context.Context, s *store.Store) error {
	if r.noLazy || r.in.Budget != nil || r.in.ResolutionPolicy == "ranked_set" {
		return nil
	}
	t := &topState{ctx: ctx, s: s, want: r.rankWant()}
	if cur := r.cursor; cur != nil {
		after, err := index.AppendRankKey(nil, cur.score, cur.id, cur.num)
		if err != nil {
			return nil // a cursor without a rank key: the ordinary path compares it
		}
		t.after = after
	}
	t.h = make(rankHeap, 0, min(t.want, 1024)) // a page size may be far above what a store holds
	r.top = t
	return nil
}

// considerTop files doc, which keeper (or a parallel scan's worker)
// passed, with the heap: an accepted candidate by its rank key, a
// rejection as consider files it. matched says the constraints were
// already matched on its bytes; p is the worker's projection, if any.
func (r *resolution) considerTop(doc *store.StoredDoc, matched bool, p *prejudged) error {
	// One table of doc's members serves the match and the projection.
	rd := memberTables.Get().(*canon.Members)
	rd.ResetCanonical(doc.JSON())
	defer func() {
		rd.Reset(nil)
		memberTables.Put(rd)
	}()
	if !matched {
		matched = r.matchMembers(rd)
	}
	if matched && qualityFailure(r.in.QualityFloor, doc.Signals) == "" && r.projects(rd, p) {
		r.nEval++
		return r.top.push(doc)
	}
	if doc.Body == nil {
		return errLazyMiss // ranked from its record alone, yet not accepted: judge every candidate instead
	}
	// Rejected (or not what the walks said): judged as consider judges,
	// for its record when it is listed.
	_, rej, err := r.judge(doc, r.keepsRejections())
	if err != nil {
		return err
	}
	r.nEval++
	if rej != nil {
		r.reject(rej)
		return nil
	}
	return r.top.push(doc)
}

// matchMembers matches a document, through its members' table rd,
// against the constraints.
func (r *resolution) matchMembers(rd *canon.Members) bool {
	if r.o.walks != nil {
		r.o.walks.matches++
	}
	return r.ev.MatchMembers(r.in.Constraints, rd)
}

// projects reports whether the projection of a document, through its
// members' table rd, resolves (R4): from p when a worker projected it,
// else projected into a scratch buffer.
func (r *resolution) projects(rd *canon.Members, p *prejudged) bool {
	if p != nil {
		return p.err == nil && len(p.missing) == 0
	}
	var missing []string
	var err error
	r.top.scratch, missing, err = project.AppendMembers(r.top.scratch[:0], rd, r.in.Projection.Include, r.in.Projection.Exclude)
	return err == nil && len(missing) == 0
}

// push keeps doc's candidate when it is among the want first after the
// cursor; errLazyMiss when its score has no rank key.
func (t *topState) push(doc *store.StoredDoc) error {
	c := Candidate{CandidateID: candidateID(doc), num: doc.Num}
	if doc.Signals != nil {
		c.Score, c.cost = doc.Signals.Score, doc.Signals.Cost
	}
	var err error
	if t.key, err = index.AppendRankKey(t.key[:0], c.Score, c.CandidateID, c.num); err != nil {
		return errLazyMiss
	}
	switch {
	case t.after != nil && bytes.Compare(t.key, t.after) <= 0:
	case len(t.h) < t.want:
		heap.Push(&t.h, rankKeyed{key: bytes.Clone(t.key), c: &c})
	case t.want > 0 && bytes.Compare(t.key, t.h[0].key) < 0:
		t.h[0].key = append(t.h[0].key[:0], t.key...)
		*t.h[0].c = c
		heap.Fix(&t.h, 0)
	}
	return nil
}

// ranked returns the kept candidates in rank order.
func (t *topState) ranked() []*Candidate {
	slices.SortFunc(t.h, func(a, b rankKeyed) int { return bytes.Compare(a.key, b.key) })
	out := make([]*Candidate, len(t.h))
	for i := range t.h {
		out[i], t.h[i].c.rankKey = t.h[i].c, t.h[i].key
	}
	return out
}

// fillTop judges the page's candidates in full, for their payloads and
// records; errLazyMiss when one is no longer what the scan saw.
func (r *resolution) fillTop(page []*Candidate) error {
	want := roaring.New()
	byNum := make(map[uint32]*Candidate, len(page))
	for _, c := range page {
		want.Add(c.num)
		byNum[c.num] = c
	}
	seen := 0
	for doc, err := range r.top.s.FetchLent(r.top.ctx, want, false, nil) {
		if err != nil {
			return err
		}
		c, _, err := r.judge(doc, true)
		if err != nil {
			return err
		}
		slot, ok := byNum[doc.Num]
		if !ok || c == nil || c.Score != slot.Score || c.CandidateID != slot.CandidateID {
			return errLazyMiss
		}
		seen++
		rank := slot.Rank
		*slot = *c
		slot.Rank = rank
	}
	if seen != len(page) {
		return errLazyMiss // deleted since the scan
	}
	return nil
}
