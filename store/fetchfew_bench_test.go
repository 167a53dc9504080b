package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/internal/cputime"
)

// BenchmarkFetchFew fetches a handful of random documents per operation
// (as a selective query does), through Fetch's cursors and by its point
// reads (readFew), side by side at each size, and reports cpu-ns/doc:
// the process's CPU time per document delivered, which moves less than
// the wall clock on a shared machine. By default it reads the compacted
// 20k-manifest store of BenchmarkFetch; AQLSTORE_BENCH_STORE names an
// existing store to read instead (opened read-write, index and all: give
// it a copy), e.g. the 1M-manifest corpus, where nearly every read
// misses the block cache:
//
//	AQLSTORE_BENCH_STORE=/tmp/lt1m go test -run '^$' -bench FetchFew -benchtime 20000x ./store/
func BenchmarkFetchFew(b *testing.B) {
	s, max := openFewBench(b)
	for _, size := range []int{1, 2, 4, 8, 16} {
		for _, path := range []struct {
			name string
			few  uint64
		}{{"cursors", 0}, {"points", math.MaxUint64}} {
			b.Run(fmt.Sprintf("docs=%d/%s", size, path.name), func(b *testing.B) {
				saved := fewCandidates
				fewCandidates = path.few
				defer func() { fewCandidates = saved }()
				rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 5))
				ctx := context.Background()
				docs := 0
				c0 := processCPU()
				for b.Loop() {
					nums := roaring.New()
					for nums.GetCardinality() < uint64(size) {
						nums.Add(1 + rng.Uint32N(max))
					}
					for _, err := range s.Fetch(ctx, nums, false) {
						if err != nil {
							b.Fatal(err)
						}
						docs++
					}
				}
				if docs == 0 {
					b.Fatal("no document fetched")
				}
				b.ReportMetric(float64(processCPU()-c0)/float64(docs), "cpu-ns/doc")
			})
		}
	}
}

// openFewBench opens AQLSTORE_BENCH_STORE, or builds the store of
// BenchmarkFetch, and returns it with its highest document number.
func openFewBench(b *testing.B) (*Store, uint32) {
	dir := os.Getenv("AQLSTORE_BENCH_STORE")
	if dir == "" {
		s, refs := openScanBench(b)
		return s, refs[len(refs)-1].Num
	}
	version, err := indexVersion(dir)
	if err != nil {
		b.Fatal(err)
	}
	var o *Options
	if version != "" {
		o = &Options{Indexer: readOnlyIndexer{version}} // store cannot import index; the benchmark only reads
	}
	s, err := Open(dir, o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, s.nextNum - 1
}

// indexVersion is the index version recorded in the store in dir, "" if
// it is not indexed.
func indexVersion(dir string) (string, error) {
	k, err := openKV(dir, (&Options{}).EnsureDefaults())
	if err != nil {
		return "", err
	}
	defer k.close()
	v, _, err := k.get(metaIndex, nil)
	return string(v), err
}

// readOnlyIndexer lets Open accept an indexed store for a benchmark that
// never writes.
type readOnlyIndexer struct{ version string }

var errReadOnlyIndexer = errors.New("store: benchmark indexer: read only")

func (readOnlyIndexer) Load(*IndexReader) error         { return nil }
func (readOnlyIndexer) Add(uint32, IndexInput) error    { return errReadOnlyIndexer }
func (readOnlyIndexer) Remove(uint32, IndexInput) error { return errReadOnlyIndexer }
func (readOnlyIndexer) Flush(*IndexWriter) error        { return errReadOnlyIndexer }
func (readOnlyIndexer) Done(bool)                       {}
func (r readOnlyIndexer) Version() string               { return r.version }

// processCPU is the CPU time the process has used, user and system
// (0 where the system does not say).
func processCPU() time.Duration {
	d, _ := cputime.Process()
	return d
}
