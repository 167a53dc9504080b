package query

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/eval"
	"github.com/aqlstore/aqlstore/query/project"
	"github.com/aqlstore/aqlstore/store"
)

// Matcher judges one document at a time against an intent, exactly as
// Resolve judges each candidate it enumerates: every leaf evaluated and
// recorded (R3), then the quality floor, then the projection (R4). A
// server's subscription judges each document put with it, so that a
// subscription and a query can never disagree about a document.
//
// A Matcher neither enumerates, checks visibility or kinds, ranks nor
// allocates a budget: the caller hands it documents its reader may see.
// It is NOT safe for concurrent use (its evaluator caches between calls);
// use one per goroutine.
type Matcher struct {
	in *aql.Intent
	ev *eval.Evaluator
	at string
}

// NewMatcher returns a Matcher for in; at is the evaluated_at of its
// decision records (zero: now).
func NewMatcher(in *aql.Intent, at time.Time) *Matcher {
	if at.IsZero() {
		at = time.Now()
	}
	return &Matcher{in: in, ev: eval.New(), at: at.UTC().Format(time.RFC3339Nano)}
}

// Match judges doc. An accepted document is returned as a Candidate
// (Rank 0, no budget applied) and rej is nil; a rejected one as a
// Rejection whose record says why: outcome reject (a constraint failed,
// or a projection failure), or below_quality_floor. Decision ids are left
// empty for the caller to assign. The error is a document that does not
// decode.
func (m *Matcher) Match(doc *store.StoredDoc) (c *Candidate, rej *Rejection, err error) {
	return judge(m.ev, m.in, m.at, doc, true)
}

// dropped is the rejection judge returns when the caller keeps no
// rejection records: counted, never shown.
var dropped = &Rejection{}

// judge is the one place a document is judged against an intent; Resolve,
// Stream and Matcher all come here. It works on the document's canonical
// JSON bytes (no decode to a tree): when the caller keeps no record of
// rejections (records false), a document that fails the constraints
// costs one allocation-free MatchRaw and comes back as dropped; otherwise
// every leaf is evaluated and recorded (R3).
//
// The constraints and the projection resolve their pointers through one
// canon.Members, so the document's top level (where RFC 8785 order puts a
// member like "tool" after most of the bytes) is skimmed once, not once
// per walk.
func judge(ev *eval.Evaluator, in *aql.Intent, at string, doc *store.StoredDoc, records bool) (*Candidate, *Rejection, error) {
	return judgeCounting(ev, in, at, doc, records, nil, memberMemo)
}

// judgeCounting is judge counting its walks into tally when it is not
// nil (tests), and reading the document's root through memo (none when
// nil).
func judgeCounting(ev *eval.Evaluator, in *aql.Intent, at string, doc *store.StoredDoc, records bool, tally *walkTally,
	memo *canon.MemberMemo) (*Candidate, *Rejection, error) {
	w := rawWalkers.Get().(*rawWalks)
	w.rd.ResetCanonicalMemo(doc.JSON(), doc.ID, memo) // a stored document is RFC 8785
	w.ev, w.in, w.id, w.memo = ev, in, doc.ID, memo
	defer w.release()
	var walks docWalks = w
	if tally != nil {
		walks = countedWalks{tally, w}
	}
	return judgeWith(in, at, doc, records, walks)
}

// docWalks are the three reads of one document judging needs: whether it
// matches the constraints, every leaf's evaluation, and its projection.
type docWalks interface {
	match() bool
	eval() (bool, []aql.Evaluation)
	apply() (canon.RawValue, []string, error)
}

// rawWalks reads one document through a canon.Members, whose table of root
// members the three walks share. It is pooled with the Members, whose
// table's storage is worth reusing, so judging a document builds no
// closures.
type rawWalks struct {
	rd   canon.Members
	ev   *eval.Evaluator
	in   *aql.Intent
	id   canon.ContentID   // the document's, under which memo keeps its table
	memo *canon.MemberMemo // nil: none
}

// memberMemo keeps where the reads of the documents judged recently found
// their root members (canon.MemberMemo), so that a document judged again
// (a candidate of a query asked again, one of the store's first documents
// that every listed rejection reads) is not skimmed again. Its entries are
// keyed by content id, true of those bytes in any store and never stale.
// 16,384 slots: about 4 MB once full of manifests' tables.
var memberMemo = canon.NewMemberMemo(1 << 14)

// memoMaxDocs is the most documents one judging reads through
// memberMemo: a quarter of its slots. A larger set (a 10% equality of a
// million manifests judges 100,000) would only replace entries, a new one
// allocated per document, and push out the documents queries ask for
// again.
const memoMaxDocs = 1 << 12

// memoFor returns the memo for judging n documents: memberMemo, or nil
// beyond memoMaxDocs.
func memoFor(n uint64) *canon.MemberMemo {
	if n > memoMaxDocs {
		return nil
	}
	return memberMemo
}

var rawWalkers = sync.Pool{New: func() any { return new(rawWalks) }}

func (w *rawWalks) match() bool { return w.ev.MatchMembers(w.in.Constraints, &w.rd) }

func (w *rawWalks) eval() (bool, []aql.Evaluation) {
	return w.ev.EvalMembers(w.in.Constraints, &w.rd, nil)
}

func (w *rawWalks) apply() (canon.RawValue, []string, error) {
	return project.AppendMembers(nil, &w.rd, w.in.Projection.Include, w.in.Projection.Exclude)
}

// release returns w to its pool, holding nothing of the document.
func (w *rawWalks) release() {
	w.rd.Memo(w.id, w.memo)
	w.rd.Reset(nil)
	w.ev, w.in, w.memo = nil, nil, nil
	rawWalkers.Put(w)
}

// walkTally counts the constraint walks judging took, so that tests can
// say how often a document was matched, evaluated and projected.
type walkTally struct{ matches, evals, applies int }

// countedWalks are w's walks, each counted into t.
type countedWalks struct {
	t *walkTally
	w docWalks
}

func (c countedWalks) match() bool { c.t.matches++; return c.w.match() }

func (c countedWalks) eval() (bool, []aql.Evaluation) { c.t.evals++; return c.w.eval() }

func (c countedWalks) apply() (canon.RawValue, []string, error) { c.t.applies++; return c.w.apply() }

// judgeWith is judge over any way of reading the document (R3, the
// quality floor, R4).
func judgeWith(in *aql.Intent, at string, doc *store.StoredDoc, records bool, w docWalks) (*Candidate, *Rejection, error) {
	if !records && !w.match() {
		return nil, dropped, nil
	}
	passed, evals := w.eval()
	rec := DecisionRecord{EvaluatedAt: at, Evaluations: evals, Outcome: "accept"}
	id := candidateID(doc)
	reject := func(outcome, why string) (*Candidate, *Rejection, error) {
		rec.Outcome, rec.Explanation = outcome, why
		return nil, &Rejection{CandidateID: id, Record: rec, num: doc.Num}, nil
	}
	if !passed {
		return reject("reject", failedExplanation(in.Constraints, evals))
	}
	if why := qualityFailure(in.QualityFloor, doc.Signals); why != "" {
		return reject("below_quality_floor", why)
	}
	payload, missing, err := w.apply()
	if errors.Is(err, project.ErrMalformed) {
		return nil, nil, fmt.Errorf("query: document %d: %w", doc.Num, err)
	}
	if err != nil || len(missing) > 0 {
		return reject("reject", projectionExplanation(missing, err))
	}
	rec.Explanation = "all constraints satisfied"
	c := &Candidate{CandidateID: id, Payload: payload, Record: rec, num: doc.Num}
	if doc.Signals != nil {
		c.Score, c.cost = doc.Signals.Score, doc.Signals.Cost
	}
	return c, nil, nil
}

// memberTables keeps the Members tables a page kept in a heap reads documents through
// (topk.go); their member tables are worth reusing across documents.
var memberTables = sync.Pool{New: func() any { return new(canon.Members) }}
