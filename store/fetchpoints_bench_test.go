package store

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// BenchmarkFetchPoints compares two ways to read the records of sparse and
// dense candidate bitmaps: seeking one cursor forward (what fetchPoints
// does) or a point read per candidate. Bodies are read through the body
// cursor either way.
//
//	go test -run '^$' -bench FetchPoints -benchtime 20x ./store/
func BenchmarkFetchPoints(b *testing.B) {
	s, refs := openScanBench(b)
	ctx := context.Background()
	for _, share := range []struct {
		name string
		per  int // documents per 10000
	}{{"0.1%", 10}, {"1%", 100}, {"10%", 1000}, {"50%", 5000}} {
		rng := rand.New(rand.NewPCG(benchSeed, 4))
		sets := make([]*roaring.Bitmap, 16)
		for i := range sets {
			sets[i] = roaring.New()
			for _, ref := range refs {
				if rng.IntN(10000) < share.per {
					sets[i].Add(ref.Num)
				}
			}
		}
		for _, byGet := range []bool{false, true} {
			name := share.name + "/cursor"
			if byGet {
				name = share.name + "/get"
			}
			b.Run(name, func(b *testing.B) {
				docs, i := 0, 0
				for b.Loop() {
					err := s.read(func(v *view, bs *bodies) error {
						read := (*lender)(nil).records(v.get)
						if !byGet {
							start := []byte{prefixDoc}
							recs, err := v.cursor(start, prefixEnd(start))
							if err != nil {
								return err
							}
							defer recs.close()
							read = recs.records(nil)
						}
						return eachRecord(ctx, sets[i%len(sets)], read, func(num uint32, rec *record) error {
							docs++
							_, err := bs.body(num, rec)
							return err
						})
					})
					if err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
			})
		}
	}
}
