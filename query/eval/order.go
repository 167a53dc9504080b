package eval

import (
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/cockroachdb/apd/v3"
)

// order is lt, lte, gt and gte: exact decimals when the leaf has a decimal
// operand and v is a number or a decimal string, instants when the leaf
// has an instant operand and v is a timestamp; anything else is
// incomparable.
func (e *Evaluator) order(l *aql.Leaf, v any) outcome {
	c, ok := e.compare(l, v)
	if !ok {
		return outIncomparable
	}
	return boolOutcome(orderHolds(l.Operator, c))
}

// compare returns the sign of v - operand.
func (e *Evaluator) compare(l *aql.Leaf, v any) (int, bool) {
	if l.Decimal != nil {
		if d := &e.num[0]; decimalOf(d, v) {
			return d.Cmp(l.Decimal), true
		}
	}
	if l.IsTime {
		if t, ok := instantOf(v); ok {
			return t.Compare(l.Instant), true
		}
	}
	return 0, false
}

// decimalOf sets d to v when v is a number or a decimal string.
func decimalOf(d *apd.Decimal, v any) bool {
	switch x := v.(type) {
	case canon.Number:
		return parseNumber(d, string(x))
	case string:
		return parseDecimalString(d, x)
	}
	return false
}

// orderHolds applies an ordering operator to the sign of v - operand.
func orderHolds(op aql.Operator, c int) bool {
	switch op {
	case aql.OpLt:
		return c < 0
	case aql.OpLte:
		return c <= 0
	case aql.OpGt:
		return c > 0
	case aql.OpGte:
		return c >= 0
	}
	return false
}
