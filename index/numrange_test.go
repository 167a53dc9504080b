package index

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/cockroachdb/apd/v3"
	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// rangeDecimalGen draws decimals of mixed scale that often collide in
// value (1.5, 1.50, 15E-1) and sometimes carry more digits than a float64.
func rangeDecimalGen() *rapid.Generator[*apd.Decimal] {
	return rapid.Custom(func(t *rapid.T) *apd.Decimal {
		coeff := rapid.OneOf(rapid.Int64Range(-300, 300), // 18 digits: more than a float64 holds
			rapid.Int64Range(1e17+1, 1e18-1), rapid.Int64Range(-1e18+1, -1e17-1)).Draw(t, "coeff")
		exp := rapid.Int32Range(-6, 4).Draw(t, "exp")
		return apd.New(coeff, exp)
	})
}

// rangeValue is one value at /v: its JSON text and, for a number or a
// decimal string, the exact decimal the evaluator compares.
type rangeValue struct {
	json string
	dec  *apd.Decimal // nil: no decimal (an instant, a word)
}

func drawRangeValue(t *rapid.T) rangeValue {
	d := rangeDecimalGen().Draw(t, "dec")
	switch rapid.IntRange(0, 5).Draw(t, "form") {
	case 0, 1: // a JSON number: it denotes the double it rounds to
		f, err := strconv.ParseFloat(d.String(), 64)
		if err != nil {
			t.Fatal(err)
		}
		v, _, _ := apd.NewFromString(strconv.FormatFloat(f, 'g', -1, 64))
		return rangeValue{json: d.String(), dec: v}
	case 2, 3: // a decimal string keeps every digit
		text := d.Text('f')
		return rangeValue{json: strconv.Quote(text), dec: d}
	case 4:
		return rangeValue{json: `"2026-05-03T10:00:00Z"`}
	default:
		return rangeValue{json: `"1.5x"`}
	}
}

// TestNumberRangeMatchesBruteForce puts documents holding numbers and
// decimal strings of mixed scale at one path (some in arrays, some later
// deleted) and checks every NumberRange against a comparison of each live
// document's values with the bound.
func TestNumberRangeMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, ix := rapidStore(t, "numrange")
		ctx := context.Background()
		docs := map[uint32][]rangeValue{}
		refs := map[uint32]store.Ref{}
		for i := rapid.IntRange(1, 20).Draw(t, "docs"); i > 0; i-- {
			vals := rapid.SliceOfN(rapid.Custom(drawRangeValue), 1, 3).Draw(t, "vals")
			texts := make([]string, len(vals))
			for j, v := range vals {
				texts[j] = v.json
			}
			body := fmt.Sprintf(`{"k":%d,"v":%s}`, i, texts[0])
			if len(vals) > 1 {
				body = fmt.Sprintf(`{"k":%d,"v":[%s]}`, i, strings.Join(texts, ","))
			}
			ref, err := s.Put(ctx, store.Document{Body: []byte(body)})
			if err != nil {
				t.Fatalf("put %s: %v", body, err)
			}
			docs[ref.Num], refs[ref.Num] = vals, ref
		}
		nums := slices.Sorted(maps.Keys(refs)) // draws in a fixed order
		for _, num := range nums {
			ref := refs[num]
			if rapid.IntRange(0, 4).Draw(t, "delete") == 0 {
				if err := s.Delete(ctx, ref); err != nil {
					t.Fatal(err)
				}
				delete(docs, num)
			}
		}
		ids, _ := ix.Paths(canon.MustParsePointer("/v"))
		elems, _ := ix.Paths(canon.MustParsePointer("/v/*"))
		ids = append(ids, elems...)
		var held []*apd.Decimal // bounds at and next to the values held
		for _, num := range nums {
			for _, v := range docs[num] {
				if v.dec != nil {
					held = append(held, v.dec)
				}
			}
		}
		bound := rapid.Custom(func(t *rapid.T) *apd.Decimal {
			if len(held) == 0 || rapid.Bool().Draw(t, "fresh") {
				return rangeDecimalGen().Draw(t, "bound")
			}
			d := rapid.SampledFrom(held).Draw(t, "held")
			next := apd.New(rapid.Int64Range(-1, 1).Draw(t, "nudge"), d.Exponent)
			out := new(apd.Decimal)
			if _, err := apd.BaseContext.WithPrecision(100).Add(out, d, next); err != nil {
				t.Fatal(err)
			}
			return out
		})
		for q := 0; q < 10; q++ {
			var b NumberBounds
			lo, hi := bound.Draw(t, "lo"), bound.Draw(t, "hi")
			switch rapid.IntRange(0, 2).Draw(t, "ends") {
			case 0:
				b.Lo = lo
			case 1:
				b.Hi = hi
			default:
				b.Lo, b.Hi = lo, hi
			}
			b.OpenLo, b.OpenHi = rapid.Bool().Draw(t, "openLo"), rapid.Bool().Draw(t, "openHi")
			among := drawWithin(t, slices.Sorted(maps.Keys(docs)))
			r, err := ix.NumberRangeIn(ids, b, among)
			if err != nil {
				t.Fatal(err)
			}
			got := r.Docs
			for num, vals := range docs {
				if among != nil && !among.Contains(num) {
					continue // exact among those only
				}
				want := false
				for _, v := range vals {
					want = want || (v.dec != nil && within(v.dec, b))
				}
				if got.Contains(num) != want {
					t.Fatalf("%s: document %d %v: in range %v, want %v", bounds(b), num, vals, got.Contains(num), want)
				}
			}
			for _, num := range got.ToArray() {
				if _, live := docs[num]; !live {
					t.Fatalf("%s: document %d is not live", bounds(b), num)
				}
			}
		}
	})
}

func within(d *apd.Decimal, b NumberBounds) bool {
	if b.Lo != nil {
		if c := d.Cmp(b.Lo); c < 0 || (c == 0 && b.OpenLo) {
			return false
		}
	}
	if b.Hi != nil {
		if c := d.Cmp(b.Hi); c > 0 || (c == 0 && b.OpenHi) {
			return false
		}
	}
	return true
}

func bounds(b NumberBounds) string { return interval(b.Lo, b.Hi, b.OpenLo, b.OpenHi) }

// interval writes a range's bounds as "[lo, hi)", a nil bound as infinity.
func interval[P interface {
	comparable
	String() string
}](lo, hi P, openLo, openHi bool) string {
	var none P
	l, h := "(-inf", "+inf)"
	if lo != none {
		l = "[" + lo.String()
		if openLo {
			l = "(" + lo.String()
		}
	}
	if hi != none {
		h = hi.String() + "]"
		if openHi {
			h = hi.String() + ")"
		}
	}
	return l + ", " + h
}

// TestMinus: minus is AndNot, whether it removes documents one by one
// (few outside) or not, on run, bitmap and array containers.
func TestMinus(t *testing.T) {
	typed := roaring.New()
	typed.AddRange(0, 300000)
	typed.RunOptimize()
	sparse := roaring.New()
	for i := uint32(0); i < 400000; i += 3 {
		sparse.Add(i)
	}
	for _, outside := range []*roaring.Bitmap{roaring.New(), roaring.BitmapOf(0, 65535, 65536, 299999, 300000),
		roaring.BitmapOf(7), sparse} {
		for _, from := range []*roaring.Bitmap{typed, sparse} {
			before := from.Clone()
			want := roaring.AndNot(from, outside)
			if got := minus(from, outside); !got.Equals(want) {
				t.Errorf("minus of %d from %d: %d documents, want %d", outside.GetCardinality(), from.GetCardinality(),
					got.GetCardinality(), want.GetCardinality())
			}
			if !from.Equals(before) {
				t.Fatal("minus changed its operand")
			}
		}
	}
}
