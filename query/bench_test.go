package query

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// The benchmarks share one corpus of generated manifests (seed 1):
//
//	AQLSTORE_BENCH_DOCS  its size, default 20,000
//	AQLSTORE_BENCH_DIR   keep it in this directory and reuse it in later
//	                     runs (a 1M-manifest corpus takes minutes to build);
//	                     without it the corpus lives in a temporary
//	                     directory removed when the run ends
//	AQLSTORE_BENCH_BLOCK_COMPRESSION
//	                     store.Options.BlockCompression for the corpus
//	                     (default: the store's default); reuse a corpus
//	                     with the compression it was built with, since
//	                     compactions rewrite blocks in the open store's
//	AQLSTORE_BENCH_BLOCK_SIZE, AQLSTORE_BENCH_CACHE
//	                     store.Options.BlockSize and CacheSize in bytes
//	                     (defaults: the store's block size, a 256 MiB
//	                     cache), with the same caveat
//
// e.g. AQLSTORE_BENCH_DOCS=1000000 AQLSTORE_BENCH_DIR=/tmp/aql1m \
// go test -run XXX -bench 'Resolve|Open' -benchtime 200x ./query/
func benchDocs() int {
	if n, err := strconv.Atoi(os.Getenv("AQLSTORE_BENCH_DOCS")); err == nil && n > 0 {
		return n
	}
	return 20000
}

var (
	benchDir   string
	benchTemp  bool // benchDir is ours to remove
	benchOnce  sync.Once
	benchStore *store.Store
	benchIndex *index.Index
	benchErr   error
)

func benchOptions() *store.Options {
	o := &store.Options{NoSync: true, BlockCompression: os.Getenv("AQLSTORE_BENCH_BLOCK_COMPRESSION"),
		CacheSize: 256 << 20} // as aqlbench gives every engine
	if n, err := strconv.Atoi(os.Getenv("AQLSTORE_BENCH_BLOCK_SIZE")); err == nil {
		o.BlockSize = n
	}
	if n, err := strconv.ParseInt(os.Getenv("AQLSTORE_BENCH_CACHE"), 10, 64); err == nil {
		o.CacheSize = n
	}
	return o
}

// benchCorpus opens (once per run) the indexed corpus, building whatever
// part of it is missing.
func benchCorpus(b *testing.B) (*store.Store, *index.Index) {
	benchOnce.Do(func() {
		benchDir = os.Getenv("AQLSTORE_BENCH_DIR")
		if benchDir == "" {
			benchTemp = true
			if benchDir, benchErr = os.MkdirTemp("", "aqlstore-bench-*"); benchErr != nil {
				return
			}
		}
		benchStore, benchIndex, benchErr = index.Open(benchDir, benchOptions())
		if benchErr != nil {
			return
		}
		benchErr = fillCorpus(benchStore, benchIndex, benchDocs())
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchStore, benchIndex
}

// fillCorpus bulk loads an empty corpus, or puts manifests until the
// store holds n, resuming a corpus an earlier run left; a corpus larger
// than n is an error (the expected counts would be wrong).
func fillCorpus(s *store.Store, ix *index.Index, n int) error {
	ctx := context.Background()
	all, err := ix.All() // the count without reading every document
	if err != nil {
		return err
	}
	have := int(all.GetCardinality())
	if have > n {
		return fmt.Errorf("bench corpus in %s holds %d documents, more than AQLSTORE_BENCH_DOCS=%d", s.Dir(), have, n)
	}
	if have == 0 {
		return loadCorpus(ctx, s, n)
	}
	batch := make([]store.Document, 0, 1000)
	for i := have; i < n; i++ {
		body, _ := corpus.Document("manifest", 1, i, nil)
		batch = append(batch, store.Document{Body: body, Kind: canon.KindManifest})
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := s.PutBatch(ctx, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
		if (i+1)%100000 == 0 {
			fmt.Fprintf(os.Stderr, "bench corpus: %d/%d manifests\n", i+1, n)
		}
	}
	return nil
}

// loadCorpus bulk loads n manifests into an empty store, as `aqlstore
// put` and aqlbench's load do (a store.Loader), so that the benchmarks
// read the layout a bulk load leaves: tables ingested, no memtable.
func loadCorpus(ctx context.Context, s *store.Store, n int) error {
	l, err := s.NewLoader(ctx, nil)
	if err != nil {
		return err
	}
	defer l.Abort()
	batch := make([]store.Document, 0, 1000)
	for i := 0; i < n; i++ {
		body, _ := corpus.Document("manifest", 1, i, nil)
		batch = append(batch, store.Document{Body: body, Kind: canon.KindManifest})
		if len(batch) < cap(batch) && i < n-1 {
			continue
		}
		prep, err := s.PrepareAll(ctx, batch)
		if err != nil {
			return err
		}
		for _, pd := range prep {
			if _, err := l.Add(pd); err != nil {
				return err
			}
		}
		batch = batch[:0]
		if (i+1)%100000 == 0 {
			fmt.Fprintf(os.Stderr, "bench corpus: %d/%d manifests prepared\n", i+1, n)
		}
	}
	return l.Commit()
}

// benchIntent builds a full_set discovery intent over the constraints
// (a JSON array or object), projecting /tool/id.
func benchIntent(b *testing.B, constraints string) *aql.Intent {
	src := fmt.Sprintf(`{"intent_id":"urn:oap:intent:bench","issuer_did":"did:web:bench.example","category":"discovery",
		"constraints":%s,"projection":{"include":["/tool/id"]},
		"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},"resolution_policy":"full_set",
		"signature":{"alg":"EdDSA","value":"x"}}`, constraints)
	in, err := aql.Parse([]byte(src), nil)
	if err != nil {
		b.Fatalf("%s: %v", constraints, err)
	}
	return in
}

func leafJSON(p corpus.Predicate) string {
	v := canon.AppendValue(nil, p.Value)
	if s, ok := p.Value.(string); ok {
		v = []byte(strconv.Quote(s))
	}
	return fmt.Sprintf(`{"path":%q,"operator":%q,"value":%s}`, p.Path, p.Operator, v)
}

// benchQuery is one benchmarked intent and the count it must return.
type benchQuery struct {
	name        string
	constraints string
	want        int
}

// benchQueries are the controlled predicates at ≤ 1% selectivity, plus
// an all_of of two eq constraints returning the 0.01% bucket (every
// manifest has oap_version "1.0"), plus a point query (one result).
func benchQueries(n int) []benchQuery {
	var qs []benchQuery
	for _, p := range corpus.Predicates("manifest") {
		if p.Selectivity > 0.01 && p.Name != "eq_10pct" {
			continue // eq_10pct: the cost per accepted result at 10,000 of 100,000
		}
		want := corpus.ExpectedCount("manifest", p, 1, n)
		qs = append(qs, benchQuery{p.Name, leafJSON(p), want})
		if p.Name == "eq_0.01pct" {
			qs = append(qs, benchQuery{"all_of_eq_0.01pct",
				`{"all_of":[` + leafJSON(p) + `,{"path":"/oap_version","operator":"eq","value":"1.0"}]}`, want})
		}
	}
	// A point query, as the load test's lookups post: one manifest's
	// /tool/id, from the middle of the corpus.
	qs = append(qs, benchQuery{"point_tool_id",
		fmt.Sprintf(`{"path":"/tool/id","operator":"eq","value":"tool-1-%d"}`, n/2), 1})
	return qs
}

// BenchmarkResolve runs each query through the planner and through the
// full scan, side by side in one run, all candidates on one page; and,
// when there are more than 100, the planner's first full_set page of 100
// (planner-page100: an exact plan judges that page only); and the
// planner listing 10 rejections or none (planner-rejected10,
// planner-norejected), against what listing the default 100 costs; and
// the full scan listing none (fullscan-norejected). The expected
// count is checked before timing. Signing included. Besides ns/op it reports the latency
// percentiles p50-ms and p99-ms over the timed iterations, and
// docs-covered/s (corpus size × queries per second: for the full scan,
// its scan rate), and cpu-ms/op, the process's CPU time per query.
func BenchmarkResolve(b *testing.B) {
	s, ix := benchCorpus(b)
	n := benchDocs()
	for _, q := range benchQueries(n) {
		in := benchIntent(b, q.constraints)
		for _, mode := range []string{"planner", "planner-rejected10", "planner-norejected", "planner-page100", "fullscan", "fullscan-norejected"} {
			o := &Options{Signer: testSigner(), At: at, PageSize: 1 << 30}
			want := q.want
			switch mode {
			case "planner":
				o.Index = ix
			case "planner-rejected10":
				o.Index, o.MaxRejected = ix, 10
			case "planner-norejected":
				o.Index, o.MaxRejected = ix, -1
			case "fullscan-norejected":
				o.MaxRejected = -1
			case "planner-page100":
				if q.want <= 100 {
					continue // the same as planner
				}
				o.Index, o.PageSize, want = ix, 100, 100
			}
			b.Run(q.name+"/"+mode, func(b *testing.B) {
				resp, err := Resolve(context.Background(), s, in, o)
				if err != nil {
					b.Fatal(err)
				}
				if len(resp.Candidates) != want {
					b.Fatalf("%s: %d candidates, want %d", q.name, len(resp.Candidates), want)
				}
				lat := make([]time.Duration, 0, b.N)
				cpu0 := processCPU()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					if _, err := Resolve(context.Background(), s, in, o); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
				}
				b.StopTimer()
				reportLatency(b, lat)
				b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs-covered/s")
			})
		}
	}
}

// BenchmarkResolvePage1 times the first full_set page of 100 through the
// planner at every selectivity the manifests offer, up to every document
// (oap_version): the page costs what it holds when the rank order is
// walked, and every accepted candidate's record when they are sorted.
func BenchmarkResolvePage1(b *testing.B) {
	s, ix := benchCorpus(b)
	n := benchDocs()
	qs := []benchQuery{{"all_100pct", `{"path":"/oap_version","operator":"eq","value":"1.0"}`, n}}
	for _, p := range corpus.Predicates("manifest") {
		if p.Operator == "eq" {
			qs = append(qs, benchQuery{p.Name, leafJSON(p), corpus.ExpectedCount("manifest", p, 1, n)})
		}
	}
	for _, q := range qs {
		in := benchIntent(b, q.constraints)
		o := &Options{Signer: testSigner(), At: at, PageSize: 100, Index: ix}
		b.Run(q.name, func(b *testing.B) {
			resp, err := Resolve(context.Background(), s, in, o)
			if err != nil {
				b.Fatal(err)
			}
			if want := min(q.want, 100); len(resp.Candidates) != want {
				b.Fatalf("%s: %d candidates, want %d", q.name, len(resp.Candidates), want)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := Resolve(context.Background(), s, in, o); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			reportLatency(b, lat)
		})
	}
}

// reportLatency reports the p50 and p99 of the iterations' latencies.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 {
		i := min(int(p*float64(len(lat))), len(lat)-1)
		return float64(lat[i]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkOpen closes and reopens the corpus store with its index (the
// dictionary load, no document read) and reports the index's share of the
// bytes on disk.
func BenchmarkOpen(b *testing.B) {
	s, _ := benchCorpus(b)
	du, err := s.DiskUsage()
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s2, _, err := index.Open(benchDir, benchOptions())
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := s2.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	// After the loop: ResetTimer drops metrics reported before it.
	b.ReportMetric(float64(du.Index)/float64(du.Documents), "index/doc-bytes")
	b.ReportMetric(float64(du.Total)/float64(benchDocs()), "disk-bytes/doc")
	benchStore, benchIndex, benchErr = index.Open(benchDir, benchOptions())
	if benchErr != nil {
		b.Fatal(benchErr)
	}
}

// TestMain closes the benchmark corpus and removes it unless it lives in
// AQLSTORE_BENCH_DIR.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchStore != nil {
		benchStore.Close()
	}
	if benchTemp && benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// BenchmarkResolveRanges times the range and page workloads of the
// benchmark report through the planner, rejections not listed, as
// aqlbench asks them: an instant after a threshold and within a 90-day
// window (0.1%, every candidate on one page), a decimal range (0.1%), the
// first page of 100 of an instant before a threshold (99.9%), and ten
// full_set pages of 100 of a 1% equality, each through its cursor, and
// all its 100 pages (page_walk_1pct_100, aqlbench's page walk), beside
// its first page alone; the pages of a 1% equality and of a 10% one again
// with each ranking strategy forced (walk, sort: rank.Select).
func BenchmarkResolveRanges(b *testing.B) {
	s, ix := benchCorpus(b)
	qs := []struct {
		name, constraints string
		page, pages       int
		rank              rankStrategy
	}{
		{"after_0.1pct", `{"path":"/conformance/last_attested_at","operator":"after","value":"2026-01-01T00:00:00Z"}`, 1 << 30, 1, rankByCost},
		{"within_0.1pct", `{"path":"/conformance/last_attested_at","operator":"within","value":["2026-01-01T00:00:01Z","2026-04-01T00:00:00Z"]}`, 1 << 30, 1, rankByCost},
		{"price_lte_0.1pct", `{"path":"/pricing/models/*/amount","operator":"lte","value":"100.00"}`, 1 << 30, 1, rankByCost},
		{"before_99.9pct_page1", `{"path":"/conformance/last_attested_at","operator":"before","value":"2026-01-01T00:00:01Z"}`, 100, 1, rankByCost},
		{"risk_eq_10pct_page1", `{"path":"/risk_class","operator":"eq","value":"high"}`, 100, 1, rankByCost},
		{"eq_0.1pct", `{"path":"/tool/categories/*","operator":"eq","value":"sel_0.1pct"}`, 1 << 30, 1, rankByCost},
		{"page_walk_1pct", `{"path":"/tool/categories/*","operator":"eq","value":"sel_1pct"}`, 100, 10, rankByCost},
		{"page1_1pct", `{"path":"/tool/categories/*","operator":"eq","value":"sel_1pct"}`, 100, 1, rankByCost},
		{"page_walk_1pct_100", `{"path":"/tool/categories/*","operator":"eq","value":"sel_1pct"}`, 100, 100, rankByCost},
		{"page_walk_1pct/walk", `{"path":"/tool/categories/*","operator":"eq","value":"sel_1pct"}`, 100, 10, rankForceWalk},
		{"page_walk_1pct/sort", `{"path":"/tool/categories/*","operator":"eq","value":"sel_1pct"}`, 100, 10, rankForceSort},
		{"risk_eq_10pct_page1/walk", `{"path":"/risk_class","operator":"eq","value":"high"}`, 100, 1, rankForceWalk},
		{"risk_eq_10pct_page1/sort", `{"path":"/risk_class","operator":"eq","value":"high"}`, 100, 1, rankForceSort},
	}
	for _, q := range qs {
		in := benchIntent(b, q.constraints)
		b.Run(q.name, func(b *testing.B) {
			run := func() (int, error) {
				o := &Options{Signer: testSigner(), At: at, PageSize: q.page, MaxRejected: -1, Index: ix, rankWith: q.rank}
				got := 0
				for p := 0; p < q.pages; p++ {
					resp, err := Resolve(context.Background(), s, in, o)
					if err != nil {
						return got, err
					}
					got += len(resp.Candidates)
					if o.Cursor = resp.NextCursor; o.Cursor == "" {
						break
					}
				}
				return got, nil
			}
			if got, err := run(); err != nil || got == 0 {
				b.Fatalf("%s: %d candidates, %v", q.name, got, err)
			}
			lat := make([]time.Duration, 0, b.N)
			cpu0 := processCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := run(); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			reportLatency(b, lat)
			// CPU time is steadier than latency on a shared machine.
			b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkRankPage times ranking the first page of 100 alone, by each
// strategy (rankwalk.go), for equality plans of 0.1% to 10% of the
// corpus; it reports the walk's steps and the accepted candidates, from
// which rankStepCost is measured: the walk's ns/op over its steps
// against the sort's over the accepted.
func BenchmarkRankPage(b *testing.B) {
	s, ix := benchCorpus(b)
	ctx := context.Background()
	for _, v := range []string{"sel_0.1pct", "sel_1pct", "sel_10pct"} {
		in := benchIntent(b, `{"path":"/tool/categories/*","operator":"eq","value":"`+v+`"}`)
		plan, err := PlanIntentContext(ctx, s, ix, in, store.Public, []canon.Kind{canon.KindManifest})
		if err != nil {
			b.Fatal(err)
		}
		for _, way := range []rankStrategy{rankForceWalk, rankForceSort} {
			name := map[rankStrategy]string{rankForceWalk: "walk", rankForceSort: "sort"}[way]
			b.Run(v+"/"+name, func(b *testing.B) {
				o := &Options{Signer: testSigner(), At: at, PageSize: 100, Index: ix, rankWith: way}
				var choice *RankChoice
				for range b.N {
					od := o.withDefaults()
					r := newResolution(in, &od)
					p := *plan
					walked, err := r.rankPage(ctx, s, &p, plan.Candidates)
					if err != nil {
						b.Fatal(err)
					}
					if !walked {
						rankOrder(r.accepted)
					}
					choice = p.Rank
				}
				b.ReportMetric(float64(choice.Walked), "steps")
				b.ReportMetric(float64(choice.Accepted), "accepted")
			})
		}
	}
}
