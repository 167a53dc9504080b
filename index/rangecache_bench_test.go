package index

import (
	"context"
	"fmt"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// BenchmarkCommitRangeCache times a put of one document whose value lies
// inside every cached range of its path, with none, 16 or 256 range
// answers cached over 20,000 documents: each commit copies and updates
// every answer it adds to, the write's cost of keeping them.
func BenchmarkCommitRangeCache(b *testing.B) {
	for _, cached := range []int{0, 16, rangeResultsMax} {
		b.Run(fmt.Sprintf("ranges=%d", cached), func(b *testing.B) {
			s, ix := openIndexed(b)
			ctx := context.Background()
			const docs = 20000
			batch := make([]store.Document, 0, 1000)
			for i := range docs {
				batch = append(batch, store.Document{Body: fmt.Appendf(nil, `{"k":%d,"price":%d}`, i, i%1000)})
				if len(batch) == cap(batch) {
					if _, err := s.PutBatch(ctx, batch); err != nil {
						b.Fatal(err)
					}
					batch = batch[:0]
				}
			}
			ids, _ := ix.Paths(canon.MustParsePointer("/price"))
			for i := range cached {
				if _, err := ix.NumberRange(ids, NumberBounds{Lo: apd.New(int64(i), -3)}); err != nil {
					b.Fatal(err)
				}
			}
			n := 0
			for b.Loop() {
				n++
				if _, err := s.Put(ctx, store.Document{Body: fmt.Appendf(nil, `{"k":%d,"price":999}`, docs+n)}); err != nil {
					b.Fatal(err)
				}
			}
			if got := len(ix.cache.ranges.m); got != cached {
				b.Fatalf("%d range answers cached after the puts, want %d", got, cached)
			}
		})
	}
}
