package index

import (
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// Decimal keys. AppendDecimalKey encodes an exact decimal so that byte
// order is numeric order, for any scale and magnitude, and so that equal
// values (1.5 and 1.50, 0 and -0) encode to the same bytes. An encoded
// decimal is prefix-free: no key is a prefix of another, so bytes may
// follow it in a composite key, and inverting its bytes reverses the order.
//
// A finite nonzero value is 0.d₁d₂…dₙ × 10^E with d₁ ≠ 0 and dₙ ≠ 0:
//
//	class       1 byte: decNeg, decZero or decPos
//	exponent    E as 8 bytes big-endian, sign bit flipped
//	digits      two per byte as 1 + d₁d₂ (a lone last digit is padded with
//	            0), then a 0 terminator
//
// For a negative value the exponent and digits are inverted (^b), so a
// larger magnitude sorts first. Zero is the class byte alone.
const (
	decNeg  = 0x10
	decZero = 0x20
	decPos  = 0x30
)

// AppendDecimalKey appends the order-preserving key of d to dst. d must
// be finite; an infinity or NaN is an error.
func AppendDecimalKey(dst []byte, d *apd.Decimal) ([]byte, error) {
	if d.Form != apd.Finite {
		return dst, fmt.Errorf("index: decimal key of %s: only finite numbers have one", d.String())
	}
	digits := d.Coeff.String() // magnitude; apd keeps the sign apart
	exp := int64(d.Exponent)
	end := len(digits)
	for end > 0 && digits[end-1] == '0' {
		end-- // 1.50 = 1.5: trailing zeros change the scale, not the value
	}
	if end == 0 {
		return append(dst, decZero), nil
	}
	exp += int64(len(digits) - end) // the zeros cut off the right
	digits = digits[:end]
	return appendDigitsKey(dst, d.Negative, digits, exp+int64(len(digits))), nil
}

// appendDigitsKey appends the key of the nonzero value ±0.digits × 10^e,
// where digits has no leading or trailing zero.
func appendDigitsKey[T string | []byte](dst []byte, negative bool, digits T, e int64) []byte {
	class := byte(decPos)
	if negative {
		class = decNeg
	}
	dst = append(dst, class)
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, uint64(e)^(1<<63))
	for i := 0; i < len(digits); i += 2 {
		pair := (digits[i] - '0') * 10
		if i+1 < len(digits) {
			pair += digits[i+1] - '0'
		}
		dst = append(dst, 1+pair)
	}
	dst = append(dst, 0)
	if negative {
		invert(dst[start:])
	}
	return dst
}

// maxPlainDigits bounds the digits appendDecimalText reads; longer texts,
// rare, take apd's parse.
const maxPlainDigits = 40

// appendDecimalText is AppendNumberKey for plain decimal text,
// -?[0-9]+(\.[0-9]+)? of at most maxPlainDigits digits, read without a
// big-number parse: the form of nearly every number and decimal string a
// document holds. For any other text (an exponent, more digits) it
// returns false and AppendNumberKey decides.
func appendDecimalText(dst, text []byte) ([]byte, bool) {
	s := text
	negative := len(s) > 0 && s[0] == '-'
	if negative {
		s = s[1:]
	}
	var buf [maxPlainDigits]byte
	digits := buf[:0]
	point := -1 // digits before the decimal point
	for i, b := range s {
		switch {
		case '0' <= b && b <= '9' && len(digits) < maxPlainDigits:
			digits = append(digits, b)
		case b == '.' && point < 0 && i > 0 && i < len(s)-1:
			point = len(digits)
		default:
			return dst, false
		}
	}
	if len(digits) == 0 {
		return dst, false
	}
	if point < 0 {
		point = len(digits)
	}
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	end := len(digits)
	for end > lead && digits[end-1] == '0' {
		end--
	}
	if lead == end {
		return append(dst, decZero), true
	}
	return appendDigitsKey(dst, negative, digits[lead:end], int64(point-lead)), true
}

// AppendNumberKey is AppendDecimalKey of a JSON number's text.
func AppendNumberKey(dst []byte, number string) ([]byte, error) {
	d, _, err := apd.NewFromString(number)
	if err != nil {
		return dst, fmt.Errorf("index: decimal key of %q: %w", number, err)
	}
	return AppendDecimalKey(dst, d)
}

// invert flips every bit of b, reversing the order of prefix-free keys.
func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}
