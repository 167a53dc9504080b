package canon

import (
	"fmt"
	"strconv"
	"strings"
)

// Rounding is a number whose value its RFC 8785 form changes: a literal
// with more significant digits than a double holds (0.30000000000000001,
// 9007199254740993, a 30-digit integer) or below the double range
// (1e-400). The document is stored with the double it rounds to, as the
// RFC says; Rounding lets put say so.
type Rounding struct {
	Pointer string // JSON Pointer of the number in the document as given
	Literal string // the number as written
	Stored  string // its RFC 8785 form, as stored
}

func (r Rounding) String() string {
	ptr := r.Pointer
	if ptr == "" {
		ptr = "/"
	}
	return fmt.Sprintf("%s: the number %.40s is stored as %s, the nearest IEEE 754 double (RFC 8785); write it as a decimal string to keep every digit",
		ptr, r.Literal, r.Stored)
}

// RoundedNumbers lists the numbers of the JSON document b whose value
// its RFC 8785 form changes, in document order (object members in
// SortedKeys order). It returns nil for a document it cannot decode
// (Canonicalize reports why) and, cheaply, for the common document whose
// numbers all have at most 15 significant digits and a modest exponent,
// which a double always holds.
func RoundedNumbers(b []byte) []Rounding {
	if !mayRound(b) {
		return nil
	}
	v, err := Decode(b, &Limits{MaxBytes: len(b) + 1})
	if err != nil {
		return nil
	}
	var out []Rounding
	walkNumbers(v, "", func(ptr string, n Number) bool {
		var scratch [32]byte
		c, err := AppendNumber(scratch[:0], n)
		if err == nil && !sameDecimal(string(n), string(c)) {
			out = append(out, Rounding{Pointer: ptr, Literal: string(n), Stored: string(c)})
		}
		return true
	})
	return out
}

// mayRound reports whether b holds a number literal that a double might
// not hold exactly (literalMayRound). It over-approximates;
// RoundedNumbers then decides exactly.
func mayRound(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			end := skipString(b, i)
			if end < 0 {
				return false
			}
			i = end - 1
		case c == '-' || isDigit(c):
			j := i
			for ; j < len(b) && (b[j] == '.' || b[j] == '-' || b[j] == '+' || b[j] == 'e' || b[j] == 'E' || isDigit(b[j])); j++ {
			}
			if literalMayRound(b[i:j]) {
				return true
			}
			i = j - 1
		}
	}
	return false
}

// literalMayRound reports whether the number literal b is one a double
// might not hold exactly: more than 15 significant digits, or an
// exponent or a run of zeros that reaches toward the ends of the double
// range.
func literalMayRound(b []byte) bool {
	j, sig, zeros, expDigits := 0, 0, 0, 0
	for ; j < len(b) && b[j] != 'e' && b[j] != 'E'; j++ {
		switch {
		case b[j] == '0' && sig == 0:
			zeros++
		case isDigit(b[j]):
			sig++
		}
	}
	if j < len(b) {
		for j++; j < len(b); j++ {
			if isDigit(b[j]) {
				expDigits++
			}
		}
	}
	return sig > 15 || zeros > 250 || expDigits > 2
}

// Rounded is RoundedNumbers of raw, the input d was parsed from (by
// ParseDocument): nil at once when the parse met no number literal that
// might round.
func (d *Document) Rounded(raw []byte) []Rounding {
	if d.numbersExact {
		return nil
	}
	return RoundedNumbers(raw)
}

// sameDecimal reports whether two JSON number literals have the same
// decimal value.
func sameDecimal(a, b string) bool {
	na, da, ea := decimalParts(a)
	nb, db, eb := decimalParts(b)
	if da == "" || db == "" {
		return da == db
	}
	return na == nb && da == db && ea == eb
}

// decimalParts takes a JSON number literal apart as ±digits×10^exp, the
// digits without leading or trailing zeros ("" for zero). Exponents past
// what a literal of canonical size can mean saturate.
func decimalParts(s string) (neg bool, digits string, exp int) {
	neg = strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, e, _ := strings.Cut(strings.ToLower(s), "e")
	if e != "" {
		n, err := strconv.Atoi(e)
		if err != nil {
			n = 1 << 30
			if strings.HasPrefix(e, "-") {
				n = -n
			}
		}
		exp = n
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	exp -= len(frac)
	digits = strings.TrimLeft(intPart+frac, "0")
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	return neg, trimmed, exp
}
