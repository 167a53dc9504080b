package eval

import (
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// temporal is before, after, within and outside: v must be a timestamp.
// before and after are strict; the interval includes both bounds.
func temporal(l *aql.Leaf, v any) outcome {
	t, ok := instantOf(v)
	switch {
	case !ok:
		return outIncomparable
	case l.Operator == aql.OpWithin:
		return boolOutcome(inside(t, l.Interval))
	case l.Operator == aql.OpOutside:
		return boolOutcome(!inside(t, l.Interval))
	case !l.IsTime:
		return outIncomparable
	}
	c := t.Compare(l.Instant)
	return boolOutcome(c < 0 && l.Operator == aql.OpBefore || c > 0 && l.Operator == aql.OpAfter)
}

func inside(t canon.Instant, iv aql.Interval) bool {
	return t.Compare(iv.Start) >= 0 && t.Compare(iv.End) <= 0
}
