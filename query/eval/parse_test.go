package eval

import (
	"math/big"
	"regexp"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/cockroachdb/apd/v3"
)

var (
	jsonNumberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
	smallExpRE   = regexp.MustCompile(`^[^eE]*([eE][+-]?[0-9]{1,4})?$`)
)

// FuzzParseNumber: the allocation-free decimal reader accepts exactly what
// aql.ParseDecimal (the compiler's reading) accepts, JSON numbers and
// decimal strings alike, with the same value, which math/big.Rat confirms
// where its exponent is small enough to expand.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1", "1.0", "1e0", "10E-1", "100.00", "007", "-1.5", "5.", ".5", "1e",
		"12345678901234567890123", "1.0000000000000000000001", "0.000000000000000000000012345", "1E+2", "--1",
		"1e-0", "1e10000", "1e10001", "1e100000", "1e100001", "0e999999", "1e-100000", "12345678901234567890e99990"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d apd.Decimal
		if jsonNumberRE.MatchString(s) {
			want, ok := aql.ParseDecimal(canon.Number(s))
			checkDecimal(t, s, parseNumber(&d, s), &d, want, ok)
		}
		want, ok := aql.ParseDecimal(s)
		checkDecimal(t, s, parseDecimalString(&d, s), &d, want, ok)
	})
}

func checkDecimal(t *testing.T, s string, got bool, d, want *apd.Decimal, ok bool) {
	if got != ok {
		t.Fatalf("%q: accepted = %v, aql.ParseDecimal %v", s, got, ok)
	}
	if !got {
		return
	}
	if d.Cmp(want) != 0 {
		t.Fatalf("%q read as %s, aql.ParseDecimal %s", s, d.Text('e'), want.Text('e'))
	}
	if !smallExpRE.MatchString(s) {
		return
	}
	r, ok1 := new(big.Rat).SetString(s)
	g, ok2 := new(big.Rat).SetString(d.Text('e'))
	if !ok1 || !ok2 || r.Cmp(g) != 0 {
		t.Fatalf("%q read as %s", s, d.Text('e'))
	}
}
