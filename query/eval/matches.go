package eval

import (
	"errors"

	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/dlclark/regexp2/v2"
)

// matches runs the leaf's regex over a string value as RegExp.test does:
// an unanchored search. The compiler sets MatchTimeout on every regex; a
// match that runs out of time or backtracking stack is an unknown answer,
// reported as such rather than as a plain failure.
func matches(l *aql.Leaf, v any) outcome {
	s, ok := v.(string)
	if !ok || l.Regex == nil {
		return outIncomparable
	}
	found, err := l.Regex.MatchString(s)
	switch {
	case err == nil:
		return boolOutcome(found)
	case errors.Is(err, regexp2.ErrBacktrackingStackLimit):
		return outLimit
	}
	return outTimeout
}
