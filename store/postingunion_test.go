package store

import (
	"errors"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"pgregory.net/rapid"
)

// drawPosting draws a posting list of the shapes a lookup meets: a few
// numbers (array containers), many numbers spread over several
// containers, each still an array (a coarse range bucket, more than a
// union gathers: maxGatheredPosting), a long run (a run container), or
// dense numbers past an array's 4,096 (a bitmap container), alone or
// together.
func drawPosting(t *rapid.T) *roaring.Bitmap {
	bm := roaring.New()
	for range rapid.IntRange(0, 3).Draw(t, "parts") {
		base := rapid.Uint32Range(0, 3<<16).Draw(t, "base")
		switch rapid.IntRange(0, 4).Draw(t, "shape") {
		case 0, 1:
			for _, v := range rapid.SliceOfN(rapid.Uint32Range(0, 1<<17), 1, 20).Draw(t, "nums") {
				bm.Add(base + v)
			}
		case 4:
			step := rapid.Uint32Range(17, 300).Draw(t, "step")
			for i := range uint32(rapid.IntRange(maxGatheredPosting-2, 3*maxGatheredPosting).Draw(t, "spread")) {
				bm.Add(base + i*step)
			}
		case 2:
			bm.AddRange(uint64(base), uint64(base)+uint64(rapid.IntRange(1, 10000).Draw(t, "run")))
		default:
			for i := uint32(0); i < 10000; i++ {
				bm.Add(base + 3*i)
			}
		}
	}
	return bm
}

// TestPostingUnionMatchesOr: the union of encoded postings is the OR of
// the postings decoded, whatever their containers, and keeps nothing of
// the values it was given.
func TestPostingUnionMatchesOr(t *testing.T) {
	var u PostingUnion
	rapid.Check(t, func(t *rapid.T) {
		want := roaring.New()
		for range rapid.IntRange(0, 8).Draw(t, "postings") {
			bm := drawPosting(t)
			want.Or(bm)
			clear := roaring.New() // a stored list's clear part is never read
			if rapid.Bool().Draw(t, "clear") {
				clear.Add(rapid.Uint32().Draw(t, "cleared"))
			}
			v, err := encodeOperand(nil, bm.Clone(), clear)
			if err != nil {
				t.Fatal(err)
			}
			if err := u.Add(v); err != nil {
				t.Fatalf("add %v: %v", bm, err)
			}
			for i := range v {
				v[i] = 0xee
			}
		}
		if got := u.Bitmap(); !got.Equals(want) {
			t.Fatalf("union of %d numbers, want %d", got.GetCardinality(), want.GetCardinality())
		}
	})
}

// TestPostingUnionManyNumbers: past maxUnionNums gathered numbers the
// union sorts them into its bitmap and goes on.
func TestPostingUnionManyNumbers(t *testing.T) {
	var u PostingUnion
	want := roaring.New()
	for i := uint32(0); i < 3*maxUnionNums; i += 2 {
		bm := roaring.BitmapOf(i*7919%(1<<24), i)
		want.Or(bm)
		v, err := encodeOperand(nil, bm, roaring.New())
		if err != nil {
			t.Fatal(err)
		}
		if err := u.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	if got := u.Bitmap(); !got.Equals(want) {
		t.Fatalf("union of %d numbers, want %d", got.GetCardinality(), want.GetCardinality())
	}
	if got := u.Bitmap(); !got.IsEmpty() {
		t.Fatalf("Bitmap did not empty the union: %d numbers left", got.GetCardinality())
	}
}

// TestPostingUnionRefusesDamage: a damaged value is ErrCorrupt, never a
// panic or a wrong union.
func TestPostingUnionRefusesDamage(t *testing.T) {
	v, err := encodeOperand(nil, roaring.BitmapOf(1, 2, 70000), roaring.New())
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, {0}, v[:len(v)-1], append(append([]byte(nil), v[:1]...), 0xff, 0xff, 0xff, 0xff)} {
		var u PostingUnion
		if err := u.Add(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Add(%x) = %v, want ErrCorrupt", bad, err)
		}
	}
}
