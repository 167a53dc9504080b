package query

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// BenchmarkFirstExcluded finds the first ten documents of a
// million-document universe that a set leaves out, where the set holds
// nearly all of it: the ten last (late) or ten spread over it
// (spread). walk is the excluded walk, andnot the difference built
// first. Without the walk's bound on skips, walk took about 55 ms here.
func BenchmarkFirstExcluded(b *testing.B) {
	u := roaring.New()
	u.AddRange(0, 1000000)
	u.RunOptimize()
	late := u.Clone()
	late.RemoveRange(999990, 1000000)
	late.RunOptimize()
	spread := u.Clone()
	for i := uint32(7); i < 1000000; i += 100000 {
		spread.Remove(i)
	}
	spread.RunOptimize()
	for _, c := range []struct {
		name string
		set  *roaring.Bitmap
	}{{"late", late}, {"spread", spread}} {
		b.Run(c.name+"/walk", func(b *testing.B) {
			for range b.N {
				if w := firstExcluded(nil, excludedIter(u, c.set), 10); w.GetCardinality() != 10 {
					b.Fatal(w.GetCardinality())
				}
			}
		})
		b.Run(c.name+"/andnot", func(b *testing.B) {
			for range b.N {
				if w := firstExcluded(nil, roaring.AndNot(u, c.set).Iterator(), 10); w.GetCardinality() != 10 {
					b.Fatal(w.GetCardinality())
				}
			}
		})
	}
}
