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
	e := exp + int64(len(digits)) // value = 0.digits × 10^e
	class := byte(decPos)
	if d.Negative {
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
	if d.Negative {
		invert(dst[start:])
	}
	return dst, nil
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
