package query

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestFirstExcluded: the documents of excluded read for the list are
// those among the first limit of the merged document order, no more.
func TestFirstExcluded(t *testing.T) {
	listed := []Rejection{{num: 3}, {num: 10}}
	excluded := roaring.BitmapOf(1, 2, 5, 11, 12)
	for _, tc := range []struct {
		limit int
		want  []uint32
	}{
		{0, nil},
		{1, []uint32{1}},
		{4, []uint32{1, 2, 5}},     // 1 2 3 5
		{6, []uint32{1, 2, 5, 11}}, // 1 2 3 5 10 11
		{100, []uint32{1, 2, 5, 11, 12}},
	} {
		got := firstExcluded(listed, excluded.Iterator(), tc.limit).ToArray()
		if !slices.Equal(got, tc.want) && (len(got) != 0 || len(tc.want) != 0) {
			t.Errorf("limit %d: read %v, want %v", tc.limit, got, tc.want)
		}
	}
}

// TestExcludedIter: walking universe past a set gives universe − set in
// document order, whatever the containers (runs, arrays, bitmaps) and
// whether the set holds documents outside the universe.
func TestExcludedIter(t *testing.T) {
	// The walk alone, the difference from the first skip, and the
	// default bound between them.
	for _, limit := range []int{math.MaxInt, 0, excludedWalkMax} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			defer func(was int) { excludedWalkMax = was }(excludedWalkMax)
			excludedWalkMax = limit
			testExcludedIter(t)
		})
	}
}

func testExcludedIter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	built := 0
	for trial := 0; trial < 200; trial++ {
		universe, set := roaring.New(), roaring.New()
		span := uint64(1 + rng.IntN(300000))
		universe.AddRange(0, span)
		for range rng.IntN(2000) {
			universe.Remove(uint32(rng.Uint64N(span)))
		}
		if trial%3 == 0 {
			universe.RunOptimize()
		}
		for range rng.IntN(1 + rng.IntN(100000)) {
			set.Add(uint32(rng.Uint64N(span + 100)))
		}
		if trial%5 == 0 {
			set.AddRange(0, uint64(rng.IntN(70000))) // a dense prefix to skip
		}
		want := roaring.AndNot(universe, set).ToArray()
		var got []uint32
		it := excludedIter(universe, set)
		for it.HasNext() {
			p := it.PeekNext()
			if n := it.Next(); n != p {
				t.Fatalf("trial %d: peeked %d, then moved past %d", trial, p, n)
			}
			got = append(got, p)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: walked %d documents, want %d (first difference near %v)", trial, len(got), len(want), firstDiff(got, want))
		}
		if it.diff != nil {
			built++
		}
	}
	switch {
	case excludedWalkMax == math.MaxInt && built > 0:
		t.Fatalf("%d walks built the difference with no bound on skips", built)
	case excludedWalkMax < math.MaxInt && built == 0:
		t.Fatalf("no walk passed %d skips: the difference was never built", excludedWalkMax)
	}
}

func firstDiff(a, b []uint32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestAdjacent: the listed rejections are read with one cursor stepping
// over the records between them only when the walk visits fewer than
// twice as many records as it reads.
func TestAdjacent(t *testing.T) {
	for _, tc := range []struct {
		nums []uint32
		want bool
	}{
		{nil, false},
		{[]uint32{7}, false},
		{[]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, true},
		{[]uint32{0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11}, true}, // a point query's candidate among them
		{[]uint32{0, 3}, true},
		{[]uint32{0, 4}, false},
		{[]uint32{0, 2, 4, 6}, true},
		{[]uint32{0, 1000, 2000}, false},
	} {
		if got := adjacent(roaring.BitmapOf(tc.nums...)); got != tc.want {
			t.Errorf("%v: adjacent %v, want %v", tc.nums, got, tc.want)
		}
	}
}
