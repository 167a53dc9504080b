package store

// Benchmarks of the write and read paths on generated documents (package
// internal/corpus, fixed seed, so every run stores the same bytes). They run
// only under -bench; `go test ./store/` skips them. For example:
//
//	go test -run '^$' -bench 'Put|Get' ./store/
//	go test -run '^$' -bench 'Put/unbatched' -benchtime 5000x ./store/
//
// bytes/doc is Stats.DiskBytes after Compact: it includes the store's fixed
// files (OPTIONS, MANIFEST) and the WAL Pebble keeps for recycling, so it
// means something only once a few thousand documents are stored (give the
// unbatched case an explicit -benchtime when fsyncs are slow), and even
// then sst-bytes/doc, the live sstables alone, is the lasting cost.

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/cockroachdb/pebble/v2"
)

// benchSeed is the corpus seed of every benchmark in this package.
const benchSeed uint64 = 1

// benchChunk is how many documents the benchmarks generate at a time, with
// the timer stopped; it is a multiple of every batch size they use.
const benchChunk = 1000

// appendBenchDocs appends documents [from, from+n) of kind to dst.
func appendBenchDocs(b *testing.B, dst []Document, kind string, from, n int) []Document {
	b.Helper()
	for i := from; i < from+n; i++ {
		body, err := corpus.Document(kind, benchSeed, i, nil)
		if err != nil {
			b.Fatal(err)
		}
		dst = append(dst, Document{Body: body})
	}
	return dst
}

func openBench(b *testing.B, opts *Options) *Store {
	b.Helper()
	s, err := Open(b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// putAll stores docs in synced commits of batch documents each and returns
// their refs in order.
func putAll(b *testing.B, s *Store, docs []Document, batch int) []Ref {
	b.Helper()
	refs := make([]Ref, 0, len(docs))
	for len(docs) > 0 {
		n := min(batch, len(docs))
		r, err := s.PutBatch(context.Background(), docs[:n])
		if err != nil {
			b.Fatal(err)
		}
		refs, docs = append(refs, r...), docs[n:]
	}
	return refs
}

// diskBytesPerDoc compacts s and returns Stats.DiskBytes per document.
func diskBytesPerDoc(b *testing.B, s *Store, docs int) float64 {
	b.Helper()
	ctx := context.Background()
	if err := s.Compact(ctx); err != nil {
		b.Fatal(err)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if st.Documents != uint64(docs) {
		b.Fatalf("store holds %d documents, want %d", st.Documents, docs)
	}
	return float64(st.DiskBytes) / float64(docs)
}

// BenchmarkPut stores generated manifests with the default options (synced
// commits, blob none, Pebble block zstd): one document per commit through
// Put (unbatched), or 1000 per commit through PutBatch (batched). An
// operation is one commit.
func BenchmarkPut(b *testing.B) {
	for _, bc := range []struct {
		name  string
		batch int
	}{{"unbatched", 1}, {"batched", 1000}} {
		b.Run(bc.name, func(b *testing.B) { benchPut(b, corpus.KindManifest, bc.batch) })
	}
}

func benchPut(b *testing.B, kind string, batch int) {
	ctx := context.Background()
	s := openBench(b, nil)
	var pool []Document
	docs := 0
	for b.Loop() {
		if len(pool) == 0 {
			b.StopTimer()
			pool = appendBenchDocs(b, pool[:0], kind, docs, benchChunk)
			b.StartTimer()
		}
		var err error
		if batch == 1 {
			_, err = s.Put(ctx, pool[0])
		} else {
			_, err = s.PutBatch(ctx, pool[:batch])
		}
		if err != nil {
			b.Fatal(err)
		}
		pool, docs = pool[batch:], docs+batch
	}
	b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(diskBytesPerDoc(b, s, docs), "bytes/doc")
	// Stats.DiskBytes counts the WAL Pebble keeps for recycling; the live
	// sstables are what the documents cost for good. (A read-only Pebble
	// call outside kv.go, for want of a kv method.)
	b.ReportMetric(float64(s.kv.db.Metrics().Table.Local.LiveSize)/float64(docs), "sst-bytes/doc")
}

// getStoreDocs is the size of the store BenchmarkGet reads.
const getStoreDocs = 20000

// BenchmarkGet reads random documents by Ref from a compacted store of 20k
// generated manifests (default options), after one warming pass over all
// of them. An operation is one Get.
func BenchmarkGet(b *testing.B) {
	s := openBench(b, nil)
	refs := putAll(b, s, appendBenchDocs(b, nil, corpus.KindManifest, 0, getStoreDocs), benchChunk)
	diskBytesPerDoc(b, s, len(refs))
	ctx := context.Background()
	for _, ref := range refs {
		if _, err := s.Get(ctx, ref); err != nil {
			b.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(benchSeed, 2))
	for b.Loop() {
		if _, err := s.Get(ctx, refs[rng.IntN(len(refs))]); err != nil {
			b.Fatal(err)
		}
	}
}

// EngineMetrics returns Pebble's metrics of s, for benchmarks of the
// external test package that report where the engine's work goes (flush
// and compaction bytes, L0 tables). It exists in tests only.
func EngineMetrics(s *Store) *pebble.Metrics { return s.kv.db.Metrics() }
