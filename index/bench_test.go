package index

import (
	"context"
	"testing"

	"github.com/aqlstore/aqlstore/bench/corpus"
	"github.com/aqlstore/aqlstore/store"
)

// BenchmarkIndexedPut puts generated manifests in batches of 1000 into an
// indexed store (synced batches), reporting docs/s.
func BenchmarkIndexedPut(b *testing.B) {
	s, _, err := Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	batch := make([]store.Document, 0, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body, _ := corpus.Document("manifest", 1, i, nil)
		batch = append(batch, store.Document{Body: body})
		if len(batch) == cap(batch) || i == b.N-1 {
			if _, err := s.PutBatch(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}
