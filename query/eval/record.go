package eval

import (
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// The reasons of a failing Evaluation; doc.go lists when each applies.
const (
	ReasonNoValue      = "no value at path"
	ReasonHasValue     = "path has a value"
	ReasonRegexTimeout = "regex timeout"
	ReasonRegexLimit   = "regex limit"
	ReasonIncomparable = "incomparable"
	// ReasonNotSatisfied prefixes "<op> <value>".
	ReasonNotSatisfied = "no value satisfies "
	// ReasonHeldUnderNot is the reason of a leaf that passed under a not
	// that failed: the leaf holding is what failed it.
	ReasonHeldUnderNot = "held under not, which requires it to fail"
)

// reasonValueMax bounds the JSON of the value quoted in a reason, so that a
// large `in` set does not bloat every decision record.
const reasonValueMax = 64

// evalLeaf runs one leaf and appends its Evaluation.
func (e *Evaluator) evalLeaf(l *aql.Leaf, doc document, rec []aql.Evaluation) (bool, []aql.Evaluation) {
	if l == nil {
		return false, rec
	}
	ok := e.runLeaf(l, doc)
	ev := aql.Evaluation{Path: l.Path.String(), Operator: l.Operator.String(), Value: l.Value, Passed: ok}
	if doc.isRaw {
		ev.CandidateValue, ev.HasCandidateValue = e.scan.candidateRaw()
	} else {
		ev.CandidateValue, ev.HasCandidateValue = e.scan.candidate()
	}
	if !ok {
		ev.Reason = e.reason()
	}
	return ok, append(rec, ev)
}

// candidate is the RFC 8785 form of the witness, else of the first
// resolved value.
func (s *scan) candidate() (canon.RawValue, bool) {
	v := s.first
	if s.passed {
		v = s.witness
	} else if s.n == 0 {
		return nil, false
	}
	return canon.AppendValue(nil, v), true
}

// reason says why the scanned leaf failed.
func (e *Evaluator) reason() string {
	if r := e.scan.reason(); r != "" {
		return r
	}
	l := e.scan.leaf
	r, ok := e.reasons[l]
	if !ok {
		r = notSatisfied(l)
		e.cacheReason(l, r)
	}
	return r
}

func (e *Evaluator) cacheReason(l *aql.Leaf, r string) {
	if e.reasons == nil || len(e.reasons) >= reasonCacheMax {
		e.reasons = make(map[*aql.Leaf]string)
	}
	e.reasons[l] = r
}

// reason is the fixed reason of a failed scan, or "" when it is
// "no value satisfies", which depends on the leaf.
func (s *scan) reason() string {
	switch {
	case s.n == 0:
		return ReasonNoValue
	case s.leaf.Operator == aql.OpExists:
		return ReasonHasValue
	case s.timeout:
		return ReasonRegexTimeout
	case s.limit:
		return ReasonRegexLimit
	case !s.fails:
		return ReasonIncomparable
	}
	return ""
}

// notSatisfied builds "no value satisfies <op> <value>".
func notSatisfied(l *aql.Leaf) string {
	b := make([]byte, 0, 96)
	b = append(b, ReasonNotSatisfied...)
	b = append(b, l.Operator.String()...)
	b = append(b, ' ')
	b = appendShort(b, canon.AppendValue(nil, l.Value), reasonValueMax)
	return string(b)
}

// appendShort appends v, cut on a rune boundary after max bytes.
func appendShort(dst, v []byte, max int) []byte {
	if len(v) <= max {
		return append(dst, v...)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return append(append(dst, v[:cut]...), "..."...)
}
