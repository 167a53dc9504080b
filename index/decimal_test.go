package index

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"pgregory.net/rapid"
)

// decimalGen draws decimals of any sign, scale and magnitude, trailing
// zeros and negative zero included.
func decimalGen() *rapid.Generator[*apd.Decimal] {
	return rapid.Custom(func(t *rapid.T) *apd.Decimal {
		coeff := rapid.OneOf(rapid.Int64Range(0, 1000), rapid.Int64()).Draw(t, "coeff")
		exp := rapid.Int32Range(-40, 40).Draw(t, "exp")
		d := apd.New(coeff, exp)
		if rapid.Bool().Draw(t, "neg") && coeff >= 0 {
			d.Negative = true // includes -0
		}
		return d
	})
}

func decimalKey(t interface{ Fatalf(string, ...any) }, d *apd.Decimal) []byte {
	k, err := AppendDecimalKey(nil, d)
	if err != nil {
		t.Fatalf("AppendDecimalKey(%s): %v", d, err)
	}
	return k
}

// TestDecimalKeyOrder: for random decimals, byte order of the keys is
// apd's numeric order, inverted keys give the reverse, and no key is a
// proper prefix of another.
func TestDecimalKeyOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := decimalGen().Draw(t, "a"), decimalGen().Draw(t, "b")
		ka, kb := decimalKey(t, a), decimalKey(t, b)
		if got, want := bytes.Compare(ka, kb), a.Cmp(b); got != want {
			t.Fatalf("%s vs %s: key order %d, numeric order %d (keys %x, %x)", a, b, got, want, ka, kb)
		}
		if len(ka) != len(kb) && (bytes.HasPrefix(ka, kb) || bytes.HasPrefix(kb, ka)) {
			t.Fatalf("%s and %s: one key is a prefix of the other (%x, %x)", a, b, ka, kb)
		}
		ia, ib := bytes.Clone(ka), bytes.Clone(kb)
		invert(ia)
		invert(ib)
		if got, want := bytes.Compare(ia, ib), b.Cmp(a); got != want {
			t.Fatalf("%s vs %s inverted: key order %d, want %d", a, b, got, want)
		}
	})
}

// TestDecimalKeyCases pins the values the property test may rarely draw.
func TestDecimalKeyCases(t *testing.T) {
	ordered := []string{"-1e30", "-100", "-1.5", "-1e-30", "0", "1e-30", "0.1", "1", "1.5", "10", "1e30"}
	for i := 1; i < len(ordered); i++ {
		a, _ := AppendNumberKey(nil, ordered[i-1])
		b, _ := AppendNumberKey(nil, ordered[i])
		if bytes.Compare(a, b) >= 0 {
			t.Errorf("key(%s) = %x is not below key(%s) = %x", ordered[i-1], a, ordered[i], b)
		}
	}
	for _, same := range [][2]string{{"1.5", "1.50"}, {"0", "-0"}, {"0", "0.000"}, {"100", "1e2"}, {"-2.10", "-21e-1"}} {
		a, _ := AppendNumberKey(nil, same[0])
		b, _ := AppendNumberKey(nil, same[1])
		if !bytes.Equal(a, b) {
			t.Errorf("key(%s) = %x, key(%s) = %x; want equal", same[0], a, same[1], b)
		}
	}
	if _, err := AppendNumberKey(nil, "NaN"); err == nil {
		t.Error("AppendNumberKey(NaN): no error")
	}
	if _, err := AppendNumberKey(nil, "1.2.3"); err == nil {
		t.Error("AppendNumberKey(1.2.3): no error")
	}
}

func ExampleAppendNumberKey() {
	k, _ := AppendNumberKey(nil, "-1.50")
	fmt.Printf("%x\n", k)
	// Output: 107ffffffffffffffeefff
}
