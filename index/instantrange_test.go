package index

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// drawInstant draws instants that fall on, next to and between range
// buckets (2^24 and 2^16 seconds, instantBuckets), some with fractions
// past the nanosecond.
func drawInstant(t *rapid.T) canon.Instant {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix() &^ (1<<24 - 1)
	var sec int64
	switch rapid.IntRange(0, 2).Draw(t, "where") {
	case 0: // anywhere in four coarse buckets
		sec = base + rapid.Int64Range(0, 4<<24).Draw(t, "sec")
	case 1: // at a bucket's edge, or next to it
		unit := rapid.SampledFrom([]int64{1 << 16, 1 << 24}).Draw(t, "unit")
		sec = base + rapid.Int64Range(0, 4<<24/unit).Draw(t, "edge")*unit + rapid.Int64Range(-1, 1).Draw(t, "nudge")
	default: // within a few fine buckets
		sec = base + rapid.Int64Range(0, 4<<16).Draw(t, "sec")
	}
	in := canon.Instant{T: time.Unix(sec, 0).UTC()}
	if rapid.Bool().Draw(t, "fraction") {
		in.T = in.T.Add(time.Duration(rapid.SampledFrom([]int64{0, 1, 5e8, 999999999}).Draw(t, "nanos")))
		in.Sub = rapid.SampledFrom([]string{"", "1", "05"}).Draw(t, "sub")
	}
	return in
}

// TestInstantRangeMatchesBruteForce puts documents holding instants at one
// path (some in arrays, some later deleted) and checks every InstantRange
// against a comparison of each live document's instants with the bounds,
// which often start or end inside a bucket, or at its edge.
func TestInstantRangeMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, ix := rapidStore(t, "instantrange")
		ctx := context.Background()
		docs := map[uint32][]canon.Instant{}
		refs := map[uint32]store.Ref{}
		var held []canon.Instant
		for i := rapid.IntRange(1, 30).Draw(t, "docs"); i > 0; i-- {
			vals := rapid.SliceOfN(rapid.Custom(drawInstant), 1, 3).Draw(t, "vals")
			texts := make([]string, len(vals))
			for j, v := range vals {
				texts[j] = `"` + v.String() + `"`
			}
			body := fmt.Sprintf(`{"k":%d,"at":[%s]}`, i, strings.Join(texts, ","))
			ref, err := s.Put(ctx, store.Document{Body: []byte(body)})
			if err != nil {
				t.Fatalf("put %s: %v", body, err)
			}
			docs[ref.Num], refs[ref.Num] = vals, ref
			held = append(held, vals...)
		}
		for _, num := range slices.Sorted(maps.Keys(refs)) {
			if rapid.IntRange(0, 4).Draw(t, "delete") == 0 {
				if err := s.Delete(ctx, refs[num]); err != nil {
					t.Fatal(err)
				}
				delete(docs, num)
			}
		}
		ids, _ := ix.Paths(canon.MustParsePointer("/at/*"))
		bound := rapid.Custom(func(t *rapid.T) canon.Instant {
			if rapid.Bool().Draw(t, "fresh") {
				return drawInstant(t)
			}
			in := rapid.SampledFrom(held).Draw(t, "held")
			in.T = in.T.Add(time.Duration(rapid.Int64Range(-1, 1).Draw(t, "nudge")))
			return in
		})
		for q := 0; q < 10; q++ {
			var b InstantBounds
			lo, hi := bound.Draw(t, "lo"), bound.Draw(t, "hi")
			switch rapid.IntRange(0, 2).Draw(t, "ends") {
			case 0:
				b.Lo = &lo
			case 1:
				b.Hi = &hi
			default:
				b.Lo, b.Hi = &lo, &hi
			}
			b.OpenLo, b.OpenHi = rapid.Bool().Draw(t, "openLo"), rapid.Bool().Draw(t, "openHi")
			among := drawWithin(t, slices.Sorted(maps.Keys(docs)))
			r, err := ix.InstantRangeIn(ids, b, among)
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
					want = want || instantWithin(v, b)
				}
				if got.Contains(num) != want {
					t.Fatalf("%s: document %d %v: in range %v, want %v", instantBounds(b), num, vals, got.Contains(num), want)
				}
			}
			for _, num := range got.ToArray() {
				if _, live := docs[num]; !live {
					t.Fatalf("%s: document %d is not live", instantBounds(b), num)
				}
			}
		}
	})
}

// drawWithin draws the documents a range must be exact among: every one
// (nil), or some of the live ones, which may leave out those with
// several values, whose presence forbids reading the range by its
// complement.
func drawWithin(t *rapid.T, live []uint32) *roaring.Bitmap {
	if rapid.Bool().Draw(t, "all") {
		return nil
	}
	within := roaring.New()
	for _, num := range live {
		if rapid.Bool().Draw(t, "within") {
			within.Add(num)
		}
	}
	return within
}

func instantWithin(v canon.Instant, b InstantBounds) bool {
	if b.Lo != nil {
		if c := v.Compare(*b.Lo); c < 0 || (c == 0 && b.OpenLo) {
			return false
		}
	}
	if b.Hi != nil {
		if c := v.Compare(*b.Hi); c > 0 || (c == 0 && b.OpenHi) {
			return false
		}
	}
	return true
}

func instantBounds(b InstantBounds) string { return interval(b.Lo, b.Hi, b.OpenLo, b.OpenHi) }
