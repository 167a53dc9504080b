package eval

import (
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// equal is structural JSON equality over the canon value model: numbers by
// numeric value, no coercion across types. Values outside the model are
// never equal.
func (e *Evaluator) equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case canon.Number:
		y, ok := b.(canon.Number)
		return ok && e.numberEqual(x, y)
	case []any:
		y, ok := b.([]any)
		return ok && e.arrayEqual(x, y)
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && e.objectEqual(x, y)
	}
	return false
}

// numberEqual compares two number literals by value. Equal texts need no
// parsing, which is the common case for identifiers and small integers.
func (e *Evaluator) numberEqual(x, y canon.Number) bool {
	if x == y {
		return true
	}
	a, b := &e.num[0], &e.num[1]
	return parseNumber(a, string(x)) && parseNumber(b, string(y)) && a.Cmp(b) == 0
}

func (e *Evaluator) arrayEqual(x, y []any) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !e.equal(x[i], y[i]) {
			return false
		}
	}
	return true
}

func (e *Evaluator) objectEqual(x, y map[string]any) bool {
	if len(x) != len(y) {
		return false
	}
	for k, xv := range x {
		yv, ok := y[k]
		if !ok || !e.equal(xv, yv) {
			return false
		}
	}
	return true
}

// member reports whether v equals some element of set.
func (e *Evaluator) member(v any, set []any) bool {
	for _, s := range set {
		if e.equal(v, s) {
			return true
		}
	}
	return false
}

// leafSet is the operand of in / not_in: the compiled Set, or the value
// itself when a hand-built leaf left Set empty.
func leafSet(l *aql.Leaf) []any {
	if l.Set != nil {
		return l.Set
	}
	set, _ := l.Value.([]any)
	return set
}
