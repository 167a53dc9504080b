package eval

import (
	"github.com/aqlstore/aqlstore/canon"
)

// instantOf reads v as an RFC 3339 timestamp string with
// canon.ParseInstantFull, the reading the compiler gives timestamp
// operands and the indexer gives values, so that a value and an operand
// written alike always mean the same instant, to every fractional digit.
// It does not allocate.
func instantOf(v any) (canon.Instant, bool) {
	s, ok := v.(string)
	if !ok {
		return canon.Instant{}, false
	}
	return canon.ParseInstantFull(s)
}
