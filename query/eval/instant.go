package eval

import (
	"time"

	"github.com/aqlstore/aqlstore/query/aql"
)

// instantOf reads v as an RFC 3339 timestamp string with aql.ParseInstant,
// the reading the compiler gives timestamp operands, so that a value and
// an operand written alike always mean the same instant. It does not
// allocate.
func instantOf(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	return aql.ParseInstant(s)
}
