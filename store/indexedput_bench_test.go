package store_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/aqlstore/aqlstore/store"
)

// BenchmarkIndexedPutEngine is index's BenchmarkIndexedPut (generated
// manifests in synced PutBatch commits into an indexed store) with what
// the storage engine did for them: bytes written to the WAL, by flushes
// and by compactions per document, how many flushes and compactions ran,
// and the L0 tables left. Profile it (-cpuprofile) to see how much of
// flush and compaction CPU the merge of posting operands takes:
//
//	go test -c ./store/ -o store.test
//	./store.test -test.run '^$' -test.bench 'IndexedPutEngine/batch=1000$' \
//	    -test.benchtime 30000x -test.cpuprofile cpu.prof
//	go tool pprof -top -cum -focus 'pebble.*runCompaction' store.test cpu.prof
//
// With AQLSTORE_BENCH_DIR set it puts into that store instead of an
// empty one (give it a copy: the documents stay): steady writes onto a
// large store, e.g. the load test's 1M corpus (`make loadtest-corpus`).
// Its documents are generated with seed 2, so none is already stored
// there and no natural key collides with the corpus's seed 1.
func BenchmarkIndexedPutEngine(b *testing.B) {
	for _, size := range []int{1000, 1} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) { benchIndexedPutEngine(b, size) })
	}
}

func benchIndexedPutEngine(b *testing.B, size int) {
	dir, seed := os.Getenv("AQLSTORE_BENCH_DIR"), uint64(1)
	if dir == "" {
		dir = b.TempDir()
	} else {
		seed = 2
	}
	s, _, err := index.Open(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	before := *store.EngineMetrics(s)
	batch := make([]store.Document, 0, size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body, _ := corpus.Document("manifest", seed, i, nil)
		batch = append(batch, store.Document{Body: body})
		if len(batch) == cap(batch) || i == b.N-1 {
			if _, err := s.PutBatch(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
	m := store.EngineMetrics(s)
	var flushed, compacted uint64
	for i := range m.Levels {
		flushed += m.Levels[i].TableBytesFlushed
		compacted += m.Levels[i].TableBytesCompacted
	}
	n := float64(b.N)
	b.ReportMetric(float64(m.WAL.BytesWritten-before.WAL.BytesWritten)/n, "wal-bytes/doc")
	b.ReportMetric(float64(flushed)/n, "flush-bytes/doc")
	b.ReportMetric(float64(compacted)/n, "compact-bytes/doc")
	b.ReportMetric(float64(m.Flush.Count-before.Flush.Count), "flushes")
	b.ReportMetric(float64(m.Compact.Count-before.Compact.Count), "compactions")
	b.ReportMetric(float64(m.Levels[0].TablesCount), "L0-tables")
}
