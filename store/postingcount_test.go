package store

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestPostingCount: the header's count is the bitmap's cardinality for
// array, bitmap and run containers, and a value that is no posting
// counts 0 without a panic.
func TestPostingCount(t *testing.T) {
	cases := map[string]*roaring.Bitmap{"empty": roaring.New(), "one": roaring.BitmapOf(7)}
	sparse := roaring.New()
	dense := roaring.New()
	runs := roaring.New()
	for i := uint32(0); i < 300000; i++ {
		if i%97 == 0 {
			sparse.Add(i)
		}
		if i%3 != 0 {
			dense.Add(i)
		}
	}
	runs.AddRange(5, 200000)
	runs.RunOptimize()
	cases["sparse"], cases["dense"], cases["runs"] = sparse, dense, runs
	for name, bm := range cases {
		v, err := encodeOperand(nil, bm, roaring.New())
		if err != nil {
			t.Fatal(err)
		}
		if got := PostingCount(v); got != bm.GetCardinality() {
			t.Errorf("%s: PostingCount %d, want %d", name, got, bm.GetCardinality())
		}
		for cut := 0; cut < len(v) && cut < 64; cut++ {
			PostingCount(v[:cut]) // no panic on a damaged value
		}
	}
}
