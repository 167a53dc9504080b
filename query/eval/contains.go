package eval

import "strings"

// contains is the contains operator: a substring for strings; for an array
// v, membership of a non-array value, or inclusion of every element of an
// array value (as a set: a repeated element need occur in v only once).
func (e *Evaluator) contains(v, want any) outcome {
	switch x := v.(type) {
	case string:
		w, ok := want.(string)
		if !ok {
			return outIncomparable
		}
		return boolOutcome(strings.Contains(x, w))
	case []any:
		if w, ok := want.([]any); ok {
			return boolOutcome(e.containsAll(x, w))
		}
		return boolOutcome(e.member(want, x))
	}
	return outIncomparable
}

// containsAll reports whether every element of want occurs in v.
func (e *Evaluator) containsAll(v, want []any) bool {
	for _, w := range want {
		if !e.member(w, v) {
			return false
		}
	}
	return true
}
