package eval

import "github.com/cockroachdb/apd/v3"

// maxFastCoeff bounds the coefficient the fast path builds: 18 significant
// digits always fit an int64, so apd keeps it inline, without allocating.
const maxFastCoeff = 1e17

// maxExpDigits saturates exponent parsing long before int64 could overflow.
const maxExpDigits = 1 << 40

// maxFastExp bounds the exponent the fast path accepts, far inside apd's
// limits (±100000), so that the fast path and the apd fallback accept
// exactly the numbers aql.ParseDecimal accepts.
const maxFastExp = 10000

// decimalText is a decimal literal taken apart: its value is
// ±coeff × 10^exp, with trailing zeros of the digits moved into exp.
type decimalText struct {
	coeff    uint64
	zeros    int64 // zero digits seen since the last non-zero digit
	exp      int64
	neg      bool
	overflow bool // more than 18 significant digits
}

// parseNumber sets d to the value of a JSON number literal (RFC 8259
// grammar, with leading zeros tolerated) and reports whether it could.
func parseNumber(d *apd.Decimal, s string) bool { return parseDecimal(d, s, true) }

// parseDecimalString sets d to the value of a decimal string,
// ^-?\d+(\.\d+)?$, and reports whether s is one.
func parseDecimalString(d *apd.Decimal, s string) bool { return parseDecimal(d, s, false) }

// parseDecimal reads s without allocating when it has at most 18
// significant digits and a modest exponent; otherwise apd parses it the
// way aql.ParseDecimal does, refusing exponents beyond apd's limits.
func parseDecimal(d *apd.Decimal, s string, allowExp bool) bool {
	var t decimalText
	if !t.read(s, allowExp) {
		return false
	}
	exp := t.exp + t.zeros
	if t.overflow || exp < -maxFastExp || exp > maxFastExp {
		_, _, err := d.SetString(s)
		return err == nil && d.Form == apd.Finite
	}
	d.SetFinite(t.signed(), int32(exp))
	return true
}

func (t *decimalText) signed() int64 {
	if t.neg {
		return -int64(t.coeff)
	}
	return int64(t.coeff)
}

// read checks the grammar and accumulates the value.
func (t *decimalText) read(s string, allowExp bool) bool {
	if len(s) > 0 && s[0] == '-' {
		t.neg, s = true, s[1:]
	}
	s, ok := t.digits(s, false)
	if !ok {
		return false
	}
	if len(s) > 0 && s[0] == '.' {
		if s, ok = t.digits(s[1:], true); !ok {
			return false
		}
	}
	if allowExp && len(s) > 0 && (s[0] == 'e' || s[0] == 'E') {
		s, ok = t.exponent(s[1:])
	}
	return ok && s == ""
}

// digits reads one or more digits; in a fraction each lowers the exponent.
func (t *decimalText) digits(s string, frac bool) (string, bool) {
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		t.digit(s[i])
		if frac {
			t.exp--
		}
	}
	return s[i:], i > 0
}

// digit appends one digit; zeros wait until a non-zero digit needs them,
// so trailing zeros cost no coefficient digits.
func (t *decimalText) digit(c byte) {
	if c == '0' {
		if t.coeff != 0 {
			t.zeros++
		}
		return
	}
	for ; t.zeros > 0; t.zeros-- {
		t.push(0)
	}
	t.push(uint64(c - '0'))
}

func (t *decimalText) push(d uint64) {
	if t.overflow || t.coeff >= maxFastCoeff {
		t.overflow = true
		return
	}
	t.coeff = t.coeff*10 + d
}

// exponent reads [+-]?\d+ and adds it to the exponent.
func (t *decimalText) exponent(s string) (string, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	var n int64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = min(n*10+int64(s[i]-'0'), maxExpDigits)
	}
	if neg {
		n = -n
	}
	t.exp += n
	return s[i:], i > 0
}
