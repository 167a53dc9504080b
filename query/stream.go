package query

import (
	"context"
	"iter"

	"github.com/aqlstore/aqlstore/canon"

	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// Stream yields the accepted candidates of a full_set resolution as they
// are evaluated, in document order, each with its decision record; it
// neither ranks nor allocates a budget, which need every candidate first.
// With Options.Index it reads the plan's candidates only (Options.Explain
// receives the plan), else every document of the intent's kinds; both
// yield the same candidates.
// Each candidate's Record is unsigned: a server signs each event. Stop
// iterating to end the scan; an error ends it with a final (nil, err).
func Stream(ctx context.Context, s *store.Store, in *aql.Intent, opts *Options) iter.Seq2[*Candidate, error] {
	return func(yield func(*Candidate, error) bool) {
		o := opts.withDefaults()
		if err := in.CheckValidity(o.At); err != nil {
			yield(nil, err)
			return
		}
		rctx, err := readerContext(ctx, in, &o)
		if err != nil {
			yield(nil, err)
			return
		}
		r := newResolution(in, &o)
		r.o.MaxRejected = -1
		r.ev.SetDone(ctx.Done())
		docs, err := r.streamDocs(rctx, s)
		if err != nil {
			yield(nil, err)
			return
		}
		for doc, err := range docs {
			if err == nil {
				err = r.consider(doc)
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if !r.drain(yield) {
				return
			}
		}
		if err := rctx.Err(); err != nil { // the deadline passed while the last document was judged
			yield(nil, err)
		}
	}
}

// streamDocs returns the documents Stream judges: the plan's candidates,
// in document order, when there is an index (an exact plan's are each
// evaluated once), else the full scan's.
func (r *resolution) streamDocs(ctx context.Context, s *store.Store) (iter.Seq2[*store.StoredDoc, error], error) {
	if r.o.Index == nil {
		return r.fullScan(ctx, s), nil
	}
	plan, err := PlanIntentContext(ctx, s, r.o.Index, r.in, store.Principal(ctx), r.kinds())
	if err != nil {
		return nil, err
	}
	if r.o.Explain != nil {
		r.o.Explain(plan)
	}
	r.exact = planExact(plan)
	return s.Fetch(ctx, plan.Candidates, plan.Sequential), nil
}

// drain hands accepted candidates to yield and forgets them.
func (r *resolution) drain(yield func(*Candidate, error) bool) bool {
	for _, c := range r.accepted {
		c.Record.DecisionID = r.decisionID()
		if !yield(c, nil) {
			return false
		}
	}
	r.accepted = r.accepted[:0]
	return true
}

// kinds returns the kinds to scan: the caller's, else the category's.
func (r *resolution) kinds() []canon.Kind {
	if len(r.o.Kinds) > 0 {
		return r.o.Kinds
	}
	return CategoryKinds(r.in.Category)
}
