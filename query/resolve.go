package query

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/eval"
	"github.com/aqlstore/aqlstore/query/project"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// Resolve answers intent from s and returns the signed response. An
// intent outside its validity window is an *aql.ValidityError; one whose
// issuer key resolves but whose signature fails is ErrRefused. An issuer
// whose key does not resolve reads public documents only.
func Resolve(ctx context.Context, s *store.Store, in *aql.Intent, opts *Options) (*Response, error) {
	o := opts.withDefaults()
	if o.Signer == nil {
		return nil, ErrNoSigner
	}
	if !slices.Contains(resolverRoles, o.Role) {
		return nil, fmt.Errorf("%w: Role %q: want one of %s, the resolver_role values of oap-intent-response.schema.json",
			ErrInvalidOptions, o.Role, strings.Join(resolverRoles, ", "))
	}
	if err := in.CheckValidity(o.At); err != nil {
		return nil, err
	}
	ctx, err := readerContext(ctx, in, &o)
	if err != nil {
		return nil, err
	}
	for lazy := true; ; lazy = false {
		r := newResolution(in, &o)
		r.noLazy = !lazy
		if err := r.after(o.Cursor); err != nil {
			return nil, err
		}
		if err := r.enumerate(ctx, s); err != nil {
			if errors.Is(err, errLazyMiss) && lazy {
				continue // a score without a rank key: rank every candidate
			}
			return nil, err
		}
		if err := ctx.Err(); err != nil { // a deadline that passed while the last document was judged
			return nil, err
		}
		resp, err := r.respond()
		if errors.Is(err, errLazyMiss) && lazy {
			continue // judge every candidate instead
		}
		return resp, err
	}
}

// resolverRoles are the roles a response may name.
var resolverRoles = []string{"match_broker", "provider", "storage_substrate", "publisher"}

// readerContext verifies the intent's signature (R1) and returns ctx
// acting as the principal Reader names. Without Options.Principal, the
// principal ctx already carries (store.WithPrincipal) stands in for it.
func readerContext(ctx context.Context, in *aql.Intent, o *Options) (context.Context, error) {
	if p := store.Principal(ctx); o.Principal == "" && p != store.Public {
		withCtx := *o
		withCtx.Principal = p
		o = &withCtx
	}
	p, err := Reader(in, o)
	if err != nil {
		return nil, err
	}
	return store.WithPrincipal(ctx, p), nil
}

// Reader verifies the intent's signature (R1, ErrRefused when a
// resolvable key does not verify it) and returns whom a resolution reads
// as: the issuer when the signature verified (and, with
// Options.IssuerProof, the caller is the issuer), else Options.Principal
// (the caller the embedder authenticated), else store.Public. A caller
// presenting another issuer's verified intent under IssuerProof reads as
// store.Public: neither as the issuer nor as itself, so the answer is
// the same whoever replays it.
func Reader(in *aql.Intent, o *Options) (string, error) {
	if o == nil {
		o = &Options{}
	}
	verdict, err := sign.VerifyIntent(in.Document, o.Keys)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrRefused, err) // a *sign.SignatureError names the member
	}
	switch {
	case verdict == sign.VerifiedSignature && (!o.IssuerProof || in.IssuerDID == o.Principal):
		return in.IssuerDID, nil
	case verdict == sign.VerifiedSignature:
		return store.Public, nil
	case o.Principal != "":
		return o.Principal, nil
	}
	return store.Public, nil
}

// resolution is the state of one Resolve call.
type resolution struct {
	in       *aql.Intent
	o        *Options
	ev       *eval.Evaluator
	id       string // response id suffix, shared by the decision ids
	at       string
	accepted []*Candidate
	rejected []Rejection
	nReject  int
	nEval    int
	decision int
	cursor   *cursorState      // nil on the first page
	lazy     *lazyState        // set when the page is judged after ranking (lazy.go)
	noLazy   bool              // a lazy attempt met documents unlike the index
	exact    bool              // the candidates are the plan's and the plan is exact: each satisfies the constraints
	matched  bool              // keeper matched the document it let through: it satisfies the constraints
	pre      *prejudgedSet     // the walks a parallel scan's workers did for the documents they passed
	top      *topState         // a page of a full scan kept in a bounded heap (topk.go); nil otherwise
	memo     *canon.MemberMemo // what judge reads documents' roots through: nil when it judges too many (memoFor)
}

func newResolution(in *aql.Intent, o *Options) *resolution {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return &resolution{in: in, o: o, ev: eval.New(), id: hex.EncodeToString(b[:]),
		at: o.At.Format(time.RFC3339Nano), memo: memberMemo}
}

// enumerate evaluates the candidates (R2, R3, R4) in document-number
// order: the planner's when there is an index, else every visible
// document of the intent's kinds. Both orders are the same, so both give
// the same response.
func (r *resolution) enumerate(ctx context.Context, s *store.Store) error {
	r.ev.SetDone(ctx.Done())
	if r.o.Index != nil {
		plan, err := PlanIntentContext(ctx, s, r.o.Index, r.in, store.Principal(ctx), r.kinds())
		if err != nil {
			return err
		}
		ok, err := r.tryLazy(ctx, s, plan)
		if r.o.Explain != nil && err == nil {
			r.o.Explain(plan) // after tryLazy, which says how it ranked
		}
		if ok || err != nil {
			return err
		}
		r.exact = planExact(plan)
		r.memo = memoFor(plan.Candidates.GetCardinality())
		if err := r.considerCandidates(ctx, s, plan); err != nil {
			return err
		}
		r.memo = memberMemo // the rejections listed are few
		// What the plan excluded is rejected too, and listed as the full
		// scan lists it (rejected.go).
		return r.listExcluded(ctx, s, plan.Universe, plan.Candidates)
	}
	if err := r.startTop(ctx, s); err != nil {
		return err
	}
	r.memo = nil // a full scan judges every document that matches
	if err := r.considerAll(r.fullScan(ctx, s)); err != nil {
		return err
	}
	if r.top != nil {
		r.accepted = r.top.ranked()
	}
	return nil
}

// parallelMin is the fewest candidates of an exact plan judged on
// several goroutines (considerParallel). Reading and judging a candidate
// costs 15-20 us at a million manifests (block reads, two walks of its
// bytes) and a worker's cursors tens of microseconds, so a few hundred
// candidates repay the workers; a page of 100 is judged in parallel too
// (judgeAll, pageParallelMin), in chunks of 50.
const parallelMin = 256

// considerCandidates considers the plan's candidates: those of a large
// exact plan on GOMAXPROCS goroutines, else one by one.
func (r *resolution) considerCandidates(ctx context.Context, s *store.Store, plan *Plan) error {
	workers := runtime.GOMAXPROCS(0)
	if r.exact && workers > 1 && r.o.walks == nil && plan.Candidates.GetCardinality() >= parallelMin {
		return r.considerParallel(ctx, s, plan.Candidates, workers)
	}
	// Judging keeps nothing of a document it has not copied: lent ones do.
	return r.considerAll(s.FetchLent(ctx, plan.Candidates, plan.Sequential, r.keeper()))
}

// verdict is what judging one candidate gave.
type verdict struct {
	num uint32
	c   *Candidate
	rej *Rejection
	err error
}

// pageParallelMin is the fewest documents judgeAll reads and judges on
// several goroutines: a page of 100 is two chunks of 50 on two cores,
// which at a million documents (about 9 µs a document to read and judge,
// a cursor per worker about 20) halves the page's wait.
const pageParallelMin = 64

// judgeAll reads and judges every visible document of nums (each in
// full, for its record), yielding the verdicts in document-number order:
// on GOMAXPROCS goroutines when there are enough of them, each with an
// evaluator of its own, else on this one. A verdict's error is the
// judging's; the sequence's, a read's.
func (r *resolution) judgeAll(ctx context.Context, s *store.Store, nums *roaring.Bitmap) iter.Seq2[verdict, error] {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || r.o.walks != nil || nums.GetCardinality() < pageParallelMin {
		memo := memoFor(nums.GetCardinality())
		return func(yield func(verdict, error) bool) {
			for doc, err := range s.FetchLent(ctx, nums, false, nil) {
				if err != nil {
					yield(verdict{}, err)
					return
				}
				c, rej, err := judgeCounting(r.ev, r.in, r.at, doc, true, r.o.walks, memo)
				if err != nil {
					yield(verdict{}, err)
					return
				}
				if !yield(verdict{num: doc.Num, c: c, rej: rej}, nil) {
					return
				}
			}
		}
	}
	return func(yield func(verdict, error) bool) {
		for v, err := range r.judgeParallel(ctx, s, nums, workers) {
			if err == nil {
				err = v.err
			}
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

// judgeParallel reads and judges the documents of nums on workers
// goroutines, each reading chunks of consecutive documents with an
// evaluator of its own, and yields the verdicts in document-number
// order: a verdict carries its judging's error, the sequence a read's.
// Every document is judged in full (for its record), so no verdict
// depends on the ones before it.
func (r *resolution) judgeParallel(ctx context.Context, s *store.Store, nums *roaring.Bitmap, workers int) iter.Seq2[verdict, error] {
	evs := make([]*eval.Evaluator, workers)
	for i := range evs {
		evs[i] = eval.New()
		evs[i].SetDone(ctx.Done())
	}
	memo := memoFor(nums.GetCardinality())
	return store.FetchParallel(ctx, s, nums, workers, func(w int, doc *store.StoredDoc) (verdict, error) {
		c, rej, err := judgeCounting(evs[w], r.in, r.at, doc, true, nil, memo)
		return verdict{num: doc.Num, c: c, rej: rej, err: err}, nil
	})
}

// considerParallel judges the candidates of an exact plan on workers
// goroutines (judgeParallel) and files the verdicts in document-number
// order, as considerAll would: the response is the same, byte for byte.
func (r *resolution) considerParallel(ctx context.Context, s *store.Store, nums *roaring.Bitmap, workers int) error {
	for v, err := range r.judgeParallel(ctx, s, nums, workers) {
		if err != nil {
			return fmt.Errorf("query: %w", err)
		}
		if v.err != nil {
			return v.err
		}
		r.nEval++
		if v.rej != nil {
			r.reject(v.rej)
			continue
		}
		r.accepted = append(r.accepted, v.c)
	}
	return nil
}

// considerAll considers every document of docs.
func (r *resolution) considerAll(docs iter.Seq2[*store.StoredDoc, error]) error {
	for doc, err := range docs {
		if err != nil {
			return fmt.Errorf("query: %w", err)
		}
		if err := r.consider(doc); err != nil {
			return err
		}
	}
	return nil
}

// fullScan yields every visible document of the intent's kinds that
// keeper does not rule out.
func (r *resolution) fullScan(ctx context.Context, s *store.Store) iter.Seq2[*store.StoredDoc, error] {
	if workers := runtime.GOMAXPROCS(0); workers > 1 && r.o.walks == nil {
		return r.scanParallel(ctx, s, workers)
	}
	return s.ScanKindsKeeping(ctx, r.kinds(), r.keeper())
}

// scanParallel is the full scan with keeper's test on workers goroutines
// (store.ScanKindsParallel): each matches the documents of its chunks on
// their bytes with an evaluator of its own, and the verdicts are filed in
// document-number order, where whether a rejection is still listed is
// known. A document that passed is yielded marked as matched, one that
// failed is counted as a rejection unless its record is listed.
func (r *resolution) scanParallel(ctx context.Context, s *store.Store, workers int) iter.Seq2[*store.StoredDoc, error] {
	nd := needlesOf(r.in.Constraints)
	evs := make([]*eval.Evaluator, workers)
	rds := make([]canon.Members, workers)
	scratch := make([][]byte, workers)
	for i := range evs {
		evs[i] = eval.New()
		evs[i].SetDone(ctx.Done())
	}
	pre := &prejudgedSet{byNum: map[uint32]*prejudged{}}
	r.pre = pre
	test := func(w int, num uint32, b []byte) store.Verdict {
		if !nd.mayMatch(b) {
			return store.Failed
		}
		rd := &rds[w]
		rd.ResetCanonical(b)
		defer rd.Reset(nil)
		if !evs[w].MatchMembers(r.in.Constraints, rd) {
			return store.Failed
		}
		// It is accepted unless the quality floor or the projection
		// rejects it, and either way its record is written: the walks
		// judging it needs are done here, on the worker, not on the
		// goroutine that files the verdicts. A page kept in a heap
		// needs only whether the projection resolves: the page's
		// records are written when it is filled (topk.go), so a
		// candidate the projection accepts, with no floor to check
		// against its signals, is ranked from its record alone.
		p := &prejudged{passed: true}
		if r.top != nil {
			scratch[w], p.missing, p.err = project.AppendMembers(scratch[w][:0], rd, r.in.Projection.Include, r.in.Projection.Exclude)
			p.light = true
			if p.err == nil && len(p.missing) == 0 && len(r.in.QualityFloor) == 0 {
				pre.put(num, projected)
				return store.PassedHead
			}
		} else {
			p.passed, p.evals = evs[w].EvalMembers(r.in.Constraints, rd, nil)
			p.payload, p.missing, p.err = project.AppendMembers(nil, rd, r.in.Projection.Include, r.in.Projection.Exclude)
		}
		pre.put(num, p)
		return store.Passed
	}
	keep := func(_ uint32, v store.Verdict) bool {
		switch {
		case v == store.Untested || r.keepsRejections():
			r.matched = v == store.Passed || v == store.PassedHead
			return true
		case v == store.Passed || v == store.PassedHead:
			r.matched = true
			return true
		}
		r.nEval++
		r.reject(dropped)
		return false
	}
	return s.ScanKindsParallel(ctx, r.kinds(), workers, test, keep)
}

// keeper judges a document on its bytes, before the store builds it,
// when its record would not be shown: a document that fails the
// constraints is counted as a rejection there and never copied or
// decoded, and one that matches is yielded marked as matched (consider
// then evaluates it once, for its record). The needles of the
// constraints rule most documents out at memory speed. A plan that is
// exact yields only documents that satisfy the constraints: nil.
func (r *resolution) keeper() store.Keep {
	if r.exact {
		return nil
	}
	nd := needlesOf(r.in.Constraints)
	rd := new(canon.Members)
	return func(_ uint32, b []byte) bool {
		if r.keepsRejections() {
			return true // its record may be listed: consider judges it
		}
		if nd.mayMatch(b) {
			rd.ResetCanonical(b)
			ok := r.ev.MatchMembers(r.in.Constraints, rd)
			rd.Reset(nil)
			if r.o.walks != nil {
				r.o.walks.matches++
			}
			if ok {
				r.matched = true
				return true
			}
		}
		r.nEval++
		r.reject(dropped)
		return false
	}
}

// consider evaluates one document (judge, in match.go) and files it as
// accepted or rejected. A candidate of an exact plan satisfies the
// constraints, so it is evaluated once, for its record, and not first
// matched to learn what the plan already says.
func (r *resolution) consider(doc *store.StoredDoc) error {
	matched := r.matched // keeper matched it: evaluate it, not match it again
	r.matched = false
	if r.top != nil {
		p := r.pre.take(doc.Num)
		return r.considerTop(doc, matched || p != nil, p)
	}
	var c *Candidate
	var rej *Rejection
	var err error
	if p := r.pre.take(doc.Num); p != nil {
		c, rej, err = judgeWith(r.in, r.at, doc, true, p)
	} else {
		c, rej, err = r.judge(doc, r.keepsRejections() || r.exact || matched)
	}
	if err != nil {
		return err
	}
	r.nEval++
	if rej != nil {
		r.reject(rej)
		return nil
	}
	r.accepted = append(r.accepted, c)
	return nil
}

func (r *resolution) reject(rej *Rejection) {
	r.nReject++
	if rej == dropped || !r.keepsRejections() {
		return
	}
	r.rejected = append(r.rejected, *rej)
}

// keepsRejections reports whether the next rejection is shown: not on a
// continuation page, and only up to MaxRejected.
func (r *resolution) keepsRejections() bool {
	return r.cursor == nil && r.o.MaxRejected >= 0 && len(r.rejected) < r.o.MaxRejected
}

// candidateID is the natural key where the document has one, else its
// content id.
func candidateID(doc *store.StoredDoc) string {
	if doc.NaturalKey != "" {
		return doc.NaturalKey
	}
	return doc.ID.String()
}

// failedExplanation names the leaf that failed n (eval.Blame): one that
// failed, or one that held under a not.
func failedExplanation(n *aql.Node, evals []aql.Evaluation) string {
	i := eval.Blame(n, evals)
	if i < 0 {
		return "constraint tree not satisfied"
	}
	// Concatenated, not formatted: every listed rejection has one, and
	// Sprintf boxes each operand.
	e := &evals[i]
	if e.Passed {
		return "constraint " + e.Path + " " + e.Operator + " held under not, which requires it to fail"
	}
	return "constraint " + e.Path + " " + e.Operator + " failed: " + e.Reason
}

func projectionExplanation(missing []string, err error) string {
	if err != nil {
		return "projection failure (R4): " + err.Error()
	}
	return fmt.Sprintf("projection failure (R4): include %q resolved to nothing", missing)
}

func itoa(n int) string { return strconv.Itoa(n) }

// judge judges doc for this resolution (match.go).
func (r *resolution) judge(doc *store.StoredDoc, records bool) (*Candidate, *Rejection, error) {
	return judgeCounting(r.ev, r.in, r.at, doc, records, r.o.walks, r.memo)
}

// prejudged is what a worker of a parallel scan found walking a document
// that matched: its evaluations and its projection.
// projected is a worker's word that a matched document's projection
// resolves, for a page kept in a heap (store.PassedHead): shared, never
// written.
var projected = &prejudged{light: true, passed: true}

type prejudged struct {
	light   bool // only whether the projection resolves: no evaluations, no payload
	passed  bool
	evals   []aql.Evaluation
	payload canon.RawValue
	missing []string
	err     error
}

// The walks judging needs, answered from p (docWalks).
func (p *prejudged) match() bool                              { return p.passed }
func (p *prejudged) eval() (bool, []aql.Evaluation)           { return p.passed, p.evals }
func (p *prejudged) apply() (canon.RawValue, []string, error) { return p.payload, p.missing, p.err }

// prejudgedSet holds the prejudged documents by number until consider
// takes them; workers put, the consumer takes. Safe for concurrent use.
type prejudgedSet struct {
	mu    sync.Mutex
	byNum map[uint32]*prejudged
}

func (s *prejudgedSet) put(num uint32, p *prejudged) {
	s.mu.Lock()
	s.byNum[num] = p
	s.mu.Unlock()
}

// take removes and returns document num's entry; nil when there is none
// (or s is nil: no parallel scan).
func (s *prejudgedSet) take(num uint32) *prejudged {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.byNum[num]
	delete(s.byNum, num)
	return p
}
