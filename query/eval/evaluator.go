package eval

import (
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/cockroachdb/apd/v3"
)

// Evaluator evaluates compiled constraint trees against decoded documents.
// It is reusable across trees and documents and keeps scratch buffers
// between calls, so it is NOT safe for concurrent use: use one per
// goroutine. The zero Evaluator is ready to use; New is the usual way to
// get one.
type Evaluator struct {
	scan    scan           // the leaf being scanned
	visitFn func(any) bool // e.visit, bound once so Resolve gets no new closure
	num     [2]apd.Decimal // scratch decimals for number parsing

	// reasons caches each leaf's "no value satisfies" text, the one
	// allocation Eval would otherwise make per failing leaf per candidate.
	// The *Leaf key keeps its leaf alive, so a key never aliases a newer
	// leaf; the map is dropped when it outgrows reasonCacheMax, so an
	// Evaluator reused across many intents stays small.
	reasons map[*aql.Leaf]string

	raw rawState // scratch of MatchRaw and EvalRaw (raw.go)

	// done, when closed, ends the caller's budget: a regex match is not
	// started past it (see matches).
	done <-chan struct{}
}

// SetDone makes every regex match asked for once done is closed (the
// caller's context ended: its deadline passed, or its client left) count
// as timed out without running, so that regex time counts against the
// caller's own deadline rather than adding to it; a match already
// running stops at its MatchTimeout. A nil done never closes.
func (e *Evaluator) SetDone(done <-chan struct{}) { e.done = done }

// reasonCacheMax bounds Evaluator.reasons; intents have few leaves.
const reasonCacheMax = 256

// New returns an Evaluator ready for use by one goroutine.
func New() *Evaluator {
	e := &Evaluator{}
	e.visitFn = e.visit
	return e
}

// Eval reports whether doc satisfies n and appends to rec one Evaluation
// per leaf, in tree order. Every leaf is evaluated (no short-circuit), so
// the records list the whole tree. doc is a decoded document (canon
// model); the records' CandidateValue fields are its values' RFC 8785
// bytes.
func (e *Evaluator) Eval(n *aql.Node, doc any, rec []aql.Evaluation) (bool, []aql.Evaluation) {
	ok, rec := e.eval(n, document{tree: doc}, rec)
	e.scan = scan{} // drop references into doc
	return ok, rec
}

// Match reports whether doc satisfies n. It short-circuits and records
// nothing; its answer is always Eval's.
func (e *Evaluator) Match(n *aql.Node, doc any) bool {
	ok := e.match(n, document{tree: doc})
	e.scan = scan{}
	return ok
}

func (e *Evaluator) eval(n *aql.Node, doc document, rec []aql.Evaluation) (bool, []aql.Evaluation) {
	if n == nil {
		return true, rec
	}
	switch n.Kind {
	case aql.NodeLeaf:
		return e.evalLeaf(n.Leaf, doc, rec)
	case aql.NodeAllOf:
		return e.evalAll(n.Children, doc, rec)
	case aql.NodeAnyOf:
		return e.evalAny(n.Children, doc, rec)
	case aql.NodeNot:
		from := len(rec)
		ok, rec := e.evalAll(n.Children, doc, rec)
		holds := len(n.Children) == 1 && !ok
		markHeld(rec[from:], !holds)
		return holds, rec
	}
	return false, rec
}

// markHeld gives the leaves under a not that held the reason
// ReasonHeldUnderNot when the not fails, so that the record says what
// failed. When the not holds, it takes that reason back from the leaves
// of a not nested in it: that one failing is why this one holds.
func markHeld(rec []aql.Evaluation, failed bool) {
	for i := range rec {
		if rec[i].Passed {
			rec[i].Reason = ""
			if failed {
				rec[i].Reason = ReasonHeldUnderNot
			}
		}
	}
}

// evalAll evaluates every child and reports whether all hold.
func (e *Evaluator) evalAll(children []*aql.Node, doc document, rec []aql.Evaluation) (bool, []aql.Evaluation) {
	all := true
	for _, c := range children {
		var ok bool
		ok, rec = e.eval(c, doc, rec)
		all = all && ok
	}
	return all, rec
}

// evalAny evaluates every child and reports whether any holds.
func (e *Evaluator) evalAny(children []*aql.Node, doc document, rec []aql.Evaluation) (bool, []aql.Evaluation) {
	some := false
	for _, c := range children {
		var ok bool
		ok, rec = e.eval(c, doc, rec)
		some = some || ok
	}
	return some, rec
}

func (e *Evaluator) match(n *aql.Node, doc document) bool {
	if n == nil {
		return true
	}
	switch n.Kind {
	case aql.NodeLeaf:
		return n.Leaf != nil && e.runLeaf(n.Leaf, doc)
	case aql.NodeAllOf:
		return e.matchAll(n.Children, doc)
	case aql.NodeAnyOf:
		return e.matchAny(n.Children, doc)
	case aql.NodeNot:
		return len(n.Children) == 1 && !e.match(n.Children[0], doc)
	}
	return false
}

func (e *Evaluator) matchAll(children []*aql.Node, doc document) bool {
	for _, c := range children {
		if !e.match(c, doc) {
			return false
		}
	}
	return true
}

func (e *Evaluator) matchAny(children []*aql.Node, doc document) bool {
	for _, c := range children {
		if e.match(c, doc) {
			return true
		}
	}
	return false
}
