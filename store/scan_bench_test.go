package store

// Benchmarks of the read paths the query engine runs on every candidate:
// a full Scan and a Fetch of a candidate bitmap, on a compacted store of
// 20k generated manifests (default options, 64 MiB block cache), after
// one warming scan. They report docs/s, documents delivered per second.
//
//	go test -run '^$' -bench 'Scan|Fetch' -benchtime 5x ./store/

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/aqlstore/aqlstore/internal/corpus"
)

// scanStoreDocs is the size of the store BenchmarkScan and BenchmarkFetch
// read.
const scanStoreDocs = 20000

// openScanBench builds and compacts the benchmark store, then scans it
// once so that both layouts start from the same warm cache.
func openScanBench(b *testing.B) (*Store, []Ref) {
	b.Helper()
	s := openBench(b, nil)
	refs := putAll(b, s, appendBenchDocs(b, nil, corpus.KindManifest, 0, scanStoreDocs), benchChunk)
	diskBytesPerDoc(b, s, len(refs))
	if n := scanAll(b, s); n != len(refs) {
		b.Fatalf("scan saw %d documents, want %d", n, len(refs))
	}
	return s, refs
}

func scanAll(b *testing.B, s *Store) int {
	n := 0
	for _, err := range s.Scan(context.Background(), "") {
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
	return n
}

// BenchmarkScan is one full Scan of every document per operation.
func BenchmarkScan(b *testing.B) {
	s, _ := openScanBench(b)
	docs := 0
	for b.Loop() {
		docs += scanAll(b, s)
	}
	b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkFetch fetches random candidate bitmaps holding 1% to 50% of
// the documents, by point reads and sequentially; an operation is one
// bitmap (a different one each time, from a fixed seed).
func BenchmarkFetch(b *testing.B) {
	s, refs := openScanBench(b)
	ctx := context.Background()
	for _, share := range []struct {
		name string
		per  int // documents per 1000
	}{{"1%", 10}, {"10%", 100}, {"25%", 250}, {"50%", 500}} {
		rng := rand.New(rand.NewPCG(benchSeed, 3))
		sets := make([]*roaring.Bitmap, 16)
		for i := range sets {
			sets[i] = roaring.New()
			for _, ref := range refs {
				if rng.IntN(1000) < share.per {
					sets[i].Add(ref.Num)
				}
			}
		}
		for _, mode := range []struct {
			name       string
			sequential bool
		}{{"points", false}, {"sequential", true}} {
			b.Run(share.name+"/"+mode.name, func(b *testing.B) {
				docs, i := 0, 0
				for b.Loop() {
					want := int(sets[i%len(sets)].GetCardinality())
					n := 0
					for _, err := range s.Fetch(ctx, sets[i%len(sets)], mode.sequential) {
						if err != nil {
							b.Fatal(err)
						}
						n++
					}
					if n != want {
						b.Fatalf("fetched %d documents, want %d", n, want)
					}
					docs, i = docs+n, i+1
				}
				b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
			})
		}
	}
}

// BenchmarkColdRead reads single random documents from a store whose
// block cache (1 MiB) holds almost none of it, as a selective query on a
// store much larger than its cache does: at three block sizes with the
// default zstd block compression, and at 16 KiB with snappy (MinLZ) and
// none. It reports the sstable bytes per document of each. An operation
// is one document.
func BenchmarkColdRead(b *testing.B) {
	type variant struct {
		size        int
		compression string
	}
	variants := []variant{{4 << 10, "zstd"}, {8 << 10, "zstd"}, {16 << 10, "zstd"}, {16 << 10, "snappy"}, {16 << 10, "none"}}
	for _, v := range variants {
		size := v.size
		b.Run(fmt.Sprintf("block=%dKiB/%s", size>>10, v.compression), func(b *testing.B) {
			s := openBench(b, &Options{BlockSize: size, BlockCompression: v.compression, CacheSize: 1 << 20, NoSync: true})
			refs := putAll(b, s, appendBenchDocs(b, nil, corpus.KindManifest, 0, scanStoreDocs), benchChunk)
			diskBytesPerDoc(b, s, len(refs)) // compacts
			du, err := s.DiskUsage()
			if err != nil {
				b.Fatal(err)
			}
			perDoc := float64(du.Total) / float64(len(refs))
			rng := rand.New(rand.NewPCG(benchSeed, 4))
			ctx := context.Background()
			for b.Loop() {
				if _, err := s.Get(ctx, refs[rng.IntN(len(refs))]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(perDoc, "sst-bytes/doc")
		})
	}
}
