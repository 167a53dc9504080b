package query

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/aqlstore/aqlstore/bench/corpus"
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// benchDocs is the corpus size: AQLSTORE_BENCH_DOCS, default 20,000.
func benchDocs() int {
	if n, err := strconv.Atoi(os.Getenv("AQLSTORE_BENCH_DOCS")); err == nil && n > 0 {
		return n
	}
	return 20000
}

var (
	benchDir   string
	benchOnce  sync.Once
	benchStore *store.Store
	benchIndex *index.Index
	benchErr   error
)

// benchCorpus builds (once per run) an indexed store of generated
// manifests, seed 1.
func benchCorpus(b *testing.B) (*store.Store, *index.Index) {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "aqlstore-bench-*")
		if benchErr != nil {
			return
		}
		benchStore, benchIndex, benchErr = index.Open(benchDir, &store.Options{NoSync: true})
		if benchErr != nil {
			return
		}
		ctx := context.Background()
		batch := make([]store.Document, 0, 1000)
		for i, n := 0, benchDocs(); i < n && benchErr == nil; i++ {
			body, _ := corpus.Document("manifest", 1, i, nil)
			batch = append(batch, store.Document{Body: body, Kind: canon.KindManifest})
			if len(batch) == cap(batch) || i == n-1 {
				_, benchErr = benchStore.PutBatch(ctx, batch)
				batch = batch[:0]
			}
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchStore, benchIndex
}

func benchIntent(b *testing.B, p corpus.Predicate) *aql.Intent {
	v := canon.AppendValue(nil, p.Value)
	if s, ok := p.Value.(string); ok {
		v = []byte(strconv.Quote(s))
	}
	src := fmt.Sprintf(`{"intent_id":"urn:oap:intent:bench","issuer_did":"did:web:bench.example","category":"discovery",
		"constraints":{"path":%q,"operator":%q,"value":%s},"projection":{"include":["/tool/id"]},
		"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},"resolution_policy":"full_set",
		"signature":{"alg":"EdDSA","value":"x"}}`, p.Path, p.Operator, v)
	in, err := aql.Parse([]byte(src), nil)
	if err != nil {
		b.Fatalf("%s: %v", p.Name, err)
	}
	return in
}

// BenchmarkResolve runs each controlled predicate through the planner and
// through the full scan, side by side in one run; the expected count is
// checked before timing. Signing included; MaxRejected 100.
func BenchmarkResolve(b *testing.B) {
	s, ix := benchCorpus(b)
	n := benchDocs()
	for _, p := range corpus.Predicates("manifest") {
		if p.Selectivity > 0.01 {
			continue
		}
		in := benchIntent(b, p)
		want := corpus.ExpectedCount("manifest", p, 1, n)
		for _, mode := range []string{"planner", "fullscan"} {
			o := &Options{Signer: testSigner(), At: at, PageSize: 1 << 30}
			if mode == "planner" {
				o.Index = ix
			}
			b.Run(p.Name+"/"+mode, func(b *testing.B) {
				resp, err := Resolve(context.Background(), s, in, o)
				if err != nil {
					b.Fatal(err)
				}
				if len(resp.Candidates) != want {
					b.Fatalf("%s: %d candidates, want %d", p.Name, len(resp.Candidates), want)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := Resolve(context.Background(), s, in, o); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs-covered/s")
			})
		}
	}
}

// TestMain removes the benchmark corpus, which outlives the benchmarks
// that share it.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchStore != nil {
		benchStore.Close()
	}
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}
