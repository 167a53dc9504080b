package canon

import (
	"fmt"
	"math"
	"strconv"
)

// maxExactInt bounds the integers a double holds exactly; beyond it an
// integer is written as the double nearest to it, as RFC 8785 does with
// every number.
const maxExactInt = 1 << 53

// AppendNumber appends the RFC 8785 form of a JSON number literal: the
// IEEE 754 double n rounds to, written as ECMAScript writes it (1.0 → 1,
// 1E2 → 100, 0.30000000000000001 → 0.3). It is the one number formatter:
// AppendCanonical and Canonicalize write every number through it. A
// literal that is not a JSON number, or lies outside the double range
// (1e400), is an error wrapping ErrNotCanonicalizable and dst is returned
// unchanged.
func AppendNumber(dst []byte, n Number) ([]byte, error) {
	s := string(n)
	if !validNumber(s) {
		return dst, &ValueError{Reason: fmt.Sprintf("%s is not a JSON number", quoteShort(s))}
	}
	if shortInteger(s) {
		return append(dst, s...), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return dst, &ValueError{Reason: fmt.Sprintf("number %s is outside the IEEE 754 double range and has no RFC 8785 form; keep large or exact values in strings",
			quoteShort(s))}
	}
	return AppendFloat(dst, f), nil
}

func (e *writer) number(n Number) error {
	out, err := AppendNumber(e.buf, n)
	e.buf = out
	return err
}

// shortInteger reports whether a valid JSON number is an integer of at
// most 15 digits other than -0: one a double holds exactly, written as
// ECMAScript writes it.
func shortInteger[T string | []byte](s T) bool {
	digits := s
	if s[0] == '-' {
		digits = s[1:]
	}
	if len(digits) > 15 || len(digits) == 1 && digits[0] == '0' && len(s) > 1 {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// goNumber writes the Go numeric types a document built in Go may hold.
func (e *writer) goNumber(v any) error {
	switch v := v.(type) {
	case int:
		return e.int(int64(v))
	case int8:
		return e.int(int64(v))
	case int16:
		return e.int(int64(v))
	case int32:
		return e.int(int64(v))
	case int64:
		return e.int(v)
	case uint:
		return e.uint(uint64(v))
	case uint8:
		return e.uint(uint64(v))
	case uint16:
		return e.uint(uint64(v))
	case uint32:
		return e.uint(uint64(v))
	case uint64:
		return e.uint(v)
	case float64:
		return e.float(v)
	case float32:
		return e.float32(v)
	}
	return &ValueError{Reason: fmt.Sprintf("Go type %T has no JSON form here (use the types canon.Decode returns)", v)}
}

func (e *writer) int(v int64) error {
	if -maxExactInt <= v && v <= maxExactInt {
		e.buf = strconv.AppendInt(e.buf, v, 10)
		return nil
	}
	e.buf = AppendFloat(e.buf, float64(v))
	return nil
}

func (e *writer) uint(v uint64) error {
	if v <= maxExactInt {
		e.buf = strconv.AppendUint(e.buf, v, 10)
		return nil
	}
	e.buf = AppendFloat(e.buf, float64(v))
	return nil
}

func (e *writer) float(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return &ValueError{Reason: fmt.Sprintf("%v has no JSON form", f)}
	}
	e.buf = AppendFloat(e.buf, f)
	return nil
}

// float32 signs the shortest decimal that reads back as f, as a double:
// float32(0.1) signs as 0.1, not as 0.10000000149011612.
func (e *writer) float32(f float32) error {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return &ValueError{Reason: fmt.Sprintf("%v has no JSON form", f)}
	}
	var text [32]byte
	d, _ := strconv.ParseFloat(string(strconv.AppendFloat(text[:0], float64(f), 'g', -1, 32)), 64)
	e.buf = AppendFloat(e.buf, d)
	return nil
}

// appendES6 writes a finite double as ECMAScript's Number.prototype.toString
// does (RFC 8785 §3.2.2.3): the shortest digits that read back as f, in
// fixed notation from 1e-6 up to 1e21, otherwise as d.ddde±x; -0 as 0.
func AppendFloat(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if abs := math.Abs(f); 1e-6 <= abs && abs < 1e21 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	// Go writes at least two exponent digits (1e-07); ECMAScript no zero.
	if n := len(dst); dst[n-2] == '0' && (dst[n-3] == '-' || dst[n-3] == '+') {
		dst[n-2] = dst[n-1]
		dst = dst[:n-1]
	}
	return dst
}

// validNumber reports whether s is exactly a JSON number (RFC 8259 §6),
// so that a hand-made Number cannot smuggle other JSON into the bytes.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = skipDigitsIn(s, i)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		if j := skipDigitsIn(s, i+1); j > i+1 {
			i = j
		} else {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := skipDigitsIn(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

// skipDigitsIn is skipDigits for a string.
func skipDigitsIn(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
