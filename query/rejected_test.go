package query

import (
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
		got := firstExcluded(listed, excluded, tc.limit).ToArray()
		if !slices.Equal(got, tc.want) && (len(got) != 0 || len(tc.want) != 0) {
			t.Errorf("limit %d: read %v, want %v", tc.limit, got, tc.want)
		}
	}
}
