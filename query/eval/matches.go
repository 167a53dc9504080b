package eval

import (
	"errors"
	"time"

	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/dlclark/regexp2/v2"
)

// matches runs the leaf's regex over a string value as RegExp.test does:
// an unanchored search over UTF-16 code units (aql.MatchString). The compiler sets MatchTimeout on every regex; a
// match that runs out of time or backtracking stack is an unknown answer,
// reported as such rather than as a plain failure.
//
// MatchTimeout bounds one match, but a path with a wildcard can resolve
// to a great many strings (a 4 MiB document holds a hundred thousand), so
// a bound per match alone would let one document hold a query for hours.
// So MatchTimeout is also the leaf's budget on one document: once its
// matches have run that long in all (or one has timed out), the values
// left count as timed out without being matched. A leaf that finds its
// witness in time is unaffected, and the answer does not depend on the
// order leaves run in, so Match and Eval still agree.
//
// Once the Evaluator's done is closed (SetDone) no match starts: the
// caller's deadline has passed or its client left, so a tree of many
// regex leaves cannot hold it a MatchTimeout per leaf.
func (s *scan) matches(l *aql.Leaf, v any) outcome {
	str, ok := v.(string)
	if !ok || l.Regex == nil {
		return outIncomparable
	}
	budget := l.Regex.MatchTimeout
	if s.regexSpent >= budget || s.stopped() {
		return outTimeout
	}
	start := time.Now()
	found, err := aql.MatchString(l.Regex, str)
	s.regexSpent += time.Since(start)
	switch {
	case err == nil:
		return boolOutcome(found)
	case errors.Is(err, regexp2.ErrBacktrackingStackLimit):
		return outLimit
	}
	s.regexSpent = max(s.regexSpent, budget) // a timeout spends the budget, whatever the clock says
	return outTimeout
}

// stopped reports whether the caller's done channel is closed.
func (s *scan) stopped() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}
