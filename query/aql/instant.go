package aql

import (
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/cockroachdb/apd/v3"
)

// ParseInstant parses an RFC 3339 date-time; see canon.ParseInstant,
// which the indexer shares so that the index and the evaluator read every
// timestamp the same way.
func ParseInstant(s string) (time.Time, bool) { return canon.ParseInstant(s) }

// ParseDecimal returns v as an exact decimal when v is a JSON number
// (canon.Number) or a decimal string (^-?\d+(\.\d+)?$, canon.IsDecimal),
// and false otherwise. Exactness is the point: money and scores compare
// without float rounding ("100.00" equals 100, 0.1+0.2 sums to 0.3).
// Numbers whose exponent apd cannot hold (beyond ±100000) give false.
func ParseDecimal(v any) (*apd.Decimal, bool) {
	var s string
	switch v := v.(type) {
	case canon.Number:
		s = string(v)
	case string:
		if !canon.IsDecimal(v) {
			return nil, false
		}
		s = v
	default:
		return nil, false
	}
	d, _, err := apd.NewFromString(s)
	if err != nil || d.Form != apd.Finite {
		return nil, false
	}
	return d, true
}
