package store

import (
	"context"
	"testing"

	"github.com/aqlstore/aqlstore/internal/corpus"
)

// BenchmarkLoaderAdd times the writer's bookkeeping of a bulk load per
// document (Loader.Add: the checks, numbering, record, keys and receipt)
// for manifests prepared beforehand, outside the timer, on a store
// without an indexer; with its allocations.
func BenchmarkLoaderAdd(b *testing.B) {
	s := openTest(b, nil)
	ctx := context.Background()
	pds := make([]*Prepared, b.N)
	for i := range pds {
		body, _ := corpus.Document("manifest", 1, i, nil)
		pd, err := s.Prepare(ctx, Document{Body: body})
		if err != nil {
			b.Fatal(err)
		}
		pds[i] = pd
	}
	l, err := s.NewLoader(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Abort()
	b.ReportAllocs()
	b.ResetTimer()
	for _, pd := range pds {
		if _, err := l.Add(pd); err != nil {
			b.Fatal(err)
		}
	}
}
