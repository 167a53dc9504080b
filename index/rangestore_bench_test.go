package index

import (
	"os"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/cockroachdb/apd/v3"
)

// BenchmarkRangeStore times the range lookups of the benchmark report's
// workloads (after, within and before an instant, a decimal lte), read
// as on a cache miss, on a store that aqlbench built and kept:
//
//	aqlbench bench --docs 100000 --work /tmp/w --keep ...
//	AQLSTORE_RANGE_STORE=/tmp/w/aqlstore go test ./index -run '^$' -bench RangeStore
//
// It is skipped without AQLSTORE_RANGE_STORE. Each reports "docs".
func BenchmarkRangeStore(b *testing.B) {
	dir := os.Getenv("AQLSTORE_RANGE_STORE")
	if dir == "" {
		b.Skip("AQLSTORE_RANGE_STORE names no store")
	}
	s, ix, err := Open(dir, &store.Options{CacheSize: 256 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	inst := func(v string) *canon.Instant {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			b.Fatal(err)
		}
		return &canon.Instant{T: t}
	}
	at, _ := ix.Paths(canon.MustParsePointer("/conformance/last_attested_at"))
	price, _ := ix.Paths(canon.MustParsePointer("/pricing/models/*/amount"))
	hundred, _, _ := apd.NewFromString("100.00")
	for _, q := range []struct {
		name   string
		lookup func() (interface{ GetCardinality() uint64 }, error)
	}{
		{"after_0.1pct", func() (interface{ GetCardinality() uint64 }, error) {
			return ix.readInstantRange(at, InstantBounds{Lo: inst("2026-01-01T00:00:00Z"), OpenLo: true})
		}},
		{"within_0.1pct", func() (interface{ GetCardinality() uint64 }, error) {
			return ix.readInstantRange(at, InstantBounds{Lo: inst("2026-01-01T00:00:01Z"), Hi: inst("2026-04-01T00:00:00Z")})
		}},
		{"before_99.9pct", func() (interface{ GetCardinality() uint64 }, error) {
			return ix.readInstantRange(at, InstantBounds{Hi: inst("2026-01-01T00:00:01Z"), OpenHi: true})
		}},
		{"price_lte_0.1pct", func() (interface{ GetCardinality() uint64 }, error) {
			return ix.readNumberRange(price, NumberBounds{Hi: hundred})
		}},
	} {
		b.Run(q.name, func(b *testing.B) {
			var n uint64
			for range b.N {
				bm, err := q.lookup()
				if err != nil {
					b.Fatal(err)
				}
				n = bm.GetCardinality()
			}
			b.ReportMetric(float64(n), "docs")
		})
	}
}
