package server

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/aqlstore/aqlstore/internal/cputime"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// The point-query benchmark reads a corpus of generated manifests (seed
// 1), the ones `aqlstore loadtest --lookups N` asks for:
//
//	AQLSTORE_BENCH_DOCS  its size, default 20,000
//	AQLSTORE_BENCH_DIR   an existing corpus to open instead of building
//	                     one (it is opened read-write: give it a copy,
//	                     e.g. `cp -a /work/bench1m/corpus /tmp/lt1m`)
//	AQLSTORE_BENCH_LOOKUPS
//	                     ask for the first N manifests only, as
//	                     `loadtest --lookups N` does (default: all): a
//	                     small N keeps every block the queries read in
//	                     the block cache, leaving the CPU work alone
//	AQLSTORE_BENCH_HEAP_FLOOR_MIB
//	                     hold that many MiB untouched, as `aqlstore serve`
//	                     does (16, cmd/aqlstore/heapfloor.go), to compare
//	                     with 0: the floor's effect on collections
//
// e.g. AQLSTORE_BENCH_DOCS=1000000 AQLSTORE_BENCH_DIR=/tmp/lt1m \
// go test -run '^$' -bench PointQuery -benchtime 20000x ./server/
func pointBenchDocs() int {
	if n, err := strconv.Atoi(os.Getenv("AQLSTORE_BENCH_DOCS")); err == nil && n > 0 {
		return n
	}
	return 20000
}

// pointCorpus opens the corpus the point queries read: AQLSTORE_BENCH_DIR,
// or one built in a temporary directory removed when the benchmark ends.
func pointCorpus(b *testing.B) (*store.Store, *index.Index, int) {
	n := pointBenchDocs()
	dir := os.Getenv("AQLSTORE_BENCH_DIR")
	build := dir == ""
	if build {
		dir = b.TempDir()
	}
	st, ix, err := index.Open(dir, &store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if build {
		if err := putManifests(st, n); err != nil {
			b.Fatal(err)
		}
	}
	return st, ix, n
}

// putManifests stores the first n generated manifests, public.
func putManifests(st *store.Store, n int) error {
	batch := make([]store.Document, 0, 1000)
	for i := range n {
		body, err := corpus.Document("manifest", 1, i, nil)
		if err != nil {
			return err
		}
		batch = append(batch, store.Document{Body: body, Kind: canon.KindManifest})
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := st.PutBatch(context.Background(), batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	return nil
}

// benchAt is the clock of the benchmark's server, inside the point
// queries' validity window.
var benchAt = time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)

// pointQuery is the body `aqlstore loadtest --lookups` posts for manifest
// i: /tool/id eq its id, projecting /tool/name.
func pointQuery(i int) []byte {
	return fmt.Appendf(nil, `{"category":"discovery","constraints":{"operator":"eq","path":"/tool/id","value":"tool-1-%d"},`+
		`"intent_id":"urn:oap:intent:loadtest","issuer_did":"did:web:loadtest.example",`+
		`"projection":{"include":["/tool/name"]},"signature":{"alg":"EdDSA","value":"unsigned"},`+
		`"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"}}`, i)
}

// benchServer is a server over the point corpus as `aqlstore serve
// --rate-limit 0` runs it: a JSON request log (discarded here), metrics,
// no rate limit.
func benchServer(b *testing.B) (http.Handler, int) {
	st, ix, n := pointCorpus(b)
	seed := make([]byte, ed25519.SeedSize)
	srv, err := New(Config{Store: st, Index: ix, Signer: sign.NewSigner(ed25519.NewKeyFromSeed(seed)),
		RateLimit: -1, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Now: func() time.Time { return benchAt }})
	if err != nil {
		b.Fatal(err)
	}
	return srv.Handler(), n
}

// BenchmarkPointQuery posts one point query (one candidate among the
// corpus) through the server's handler: middleware, intent parsing, plan,
// fetch, evaluation, signing, the log line and the metrics; not the
// network. Besides ns/op it reports cpu-ns/op, the process's CPU time
// per query (user + system, Pebble's background work included), which
// moves less than the wall clock on a shared machine.
func BenchmarkPointQuery(b *testing.B) {
	h, n := benchServer(b)
	post := func(i int) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, pathIntent, bytes.NewReader(pointQuery(i)))
		req.Header.Set("Content-Type", contentOAP)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	warm := 0
	if l, err := strconv.Atoi(os.Getenv("AQLSTORE_BENCH_LOOKUPS")); err == nil && l > 0 && l < n {
		n, warm = l, min(l, 20000)
	}
	if rec := post(n - 1); rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"candidates":[{"candidate_id"`)) {
		b.Fatalf("the last manifest's point query: status %d, %s", rec.Code, rec.Body.Bytes())
	}
	var floor []byte
	if mib, err := strconv.Atoi(os.Getenv("AQLSTORE_BENCH_HEAP_FLOOR_MIB")); err == nil && mib > 0 {
		floor = make([]byte, mib<<20)
	}
	defer runtime.KeepAlive(floor)
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	for range warm { // the blocks a small N reads stay cached: read them before timing
		post(rng.IntN(n))
	}
	b.ResetTimer()
	b.ReportAllocs()
	c0 := processCPU()
	for b.Loop() {
		if rec := post(rng.IntN(n)); rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body.Bytes())
		}
	}
	b.ReportMetric(float64(processCPU()-c0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time the process has used, user and system
// (0 where the system does not say).
func processCPU() time.Duration {
	d, _ := cputime.Process()
	return d
}
