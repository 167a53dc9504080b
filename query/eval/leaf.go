package eval

import (
	"time"

	"github.com/aqlstore/aqlstore/query/aql"
)

// outcome is what one resolved value does to a leaf.
type outcome uint8

const (
	outFail         outcome = iota // comparable, does not satisfy
	outPass                        // a witness
	outIncomparable                // wrong type or form for the operator
	outTimeout                     // the regex hit its MatchTimeout
	outLimit                       // the regex hit its backtracking limit
)

func boolOutcome(ok bool) outcome {
	if ok {
		return outPass
	}
	return outFail
}

// scan is the state of one leaf over the values its path resolves to.
type scan struct {
	leaf    *aql.Leaf
	first   any // the first resolved value
	witness any // the value that satisfied the operator
	n       int // values seen
	passed  bool
	fails   bool // some value was comparable but did not satisfy
	timeout bool
	limit   bool

	// regexSpent is the time this leaf's regex has run on this document;
	// see matches.
	regexSpent time.Duration
	done       <-chan struct{} // the Evaluator's (SetDone)

	// Over canonical bytes (document.isRaw), first and witness stay unset
	// and these hold the values' bytes instead.
	firstRaw, witnessRaw []byte
}

// runLeaf scans l over doc, leaving the details in e.scan, and reports
// whether l holds.
func (e *Evaluator) runLeaf(l *aql.Leaf, doc document) bool {
	e.scan = scan{leaf: l, done: e.done}
	if doc.isRaw {
		e.resolveRaw(l.Path, doc.raw)
	} else {
		if e.visitFn == nil {
			e.visitFn = e.visit
		}
		l.Path.Resolve(doc.tree, e.visitFn)
	}
	if l.Operator == aql.OpExists {
		return (e.scan.n > 0) == l.Exists
	}
	return e.scan.passed
}

// visit tests one resolved value; it stops the walk at the first witness.
func (e *Evaluator) visit(v any) bool {
	s := &e.scan
	if s.n == 0 {
		s.first = v
	}
	s.n++
	o := e.test(s.leaf, v)
	if o == outPass {
		s.witness, s.passed = v, true
		return false
	}
	s.note(o)
	return true
}

func (s *scan) note(o outcome) {
	switch o {
	case outFail:
		s.fails = true
	case outTimeout:
		s.timeout = true
	case outLimit:
		s.limit = true
	}
}

// test applies l's operator to one value. Each family lives in its own file.
func (e *Evaluator) test(l *aql.Leaf, v any) outcome {
	switch l.Operator {
	case aql.OpEq, aql.OpNe:
		return boolOutcome(e.equal(v, l.Value) == (l.Operator == aql.OpEq))
	case aql.OpLt, aql.OpLte, aql.OpGt, aql.OpGte:
		return e.order(l, v)
	case aql.OpIn, aql.OpNotIn:
		return boolOutcome(e.member(v, leafSet(l)) == (l.Operator == aql.OpIn))
	case aql.OpContains:
		return e.contains(v, l.Value)
	case aql.OpMatches:
		return e.scan.matches(l, v)
	case aql.OpBefore, aql.OpAfter, aql.OpWithin, aql.OpOutside:
		return temporal(l, v)
	case aql.OpExists:
		return outPass
	}
	return outIncomparable
}
