package index

// Range lookups with and without buckets, side by side in one run:
//
//	go test ./index -run '^$' -bench BenchmarkRangeBuckets -benchtime 20x
//
// The corpus is AQLSTORE_RANGE_DOCS documents (default 50,000), each with
// a decimal-string price (uniform cents 0.01–1000.00) and an RFC 3339
// instant (uniform seconds over three years), put in batches of 1000 and
// compacted. For each field and range, "values" ORs one posting per
// distinct value in the range (rangeScanner.values over the whole range, as lookups
// did before buckets) and "buckets" is the lookup (rangeScan). Both give
// the same documents, checked before timing; each reports "docs".
// AQLSTORE_RANGE_INSTANT_LEVELS (e.g. "5,6,7") builds the corpus with
// other instant bucket levels, to compare layouts run against run.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/cockroachdb/apd/v3"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

func BenchmarkRangeBuckets(b *testing.B) {
	n := 50000
	if v, err := strconv.Atoi(os.Getenv("AQLSTORE_RANGE_DOCS")); err == nil && v > 0 {
		n = v
	}
	if v := os.Getenv("AQLSTORE_RANGE_INSTANT_LEVELS"); v != "" {
		// Other instant bucket levels, e.g. "5,6,7": the corpus is
		// built with them, so a run compares one layout with the values.
		var levels []int
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n > 8 {
				b.Fatalf("AQLSTORE_RANGE_INSTANT_LEVELS=%q: want byte lengths 1-8, comma-separated", v)
			}
			levels = append(levels, n)
		}
		defer func(old []int) { instantBuckets = old }(instantBuckets)
		instantBuckets = levels
	}
	s, ix, err := Open(b.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	cents, secs := make([]int64, n), make([]int64, n)
	nums := make([]uint32, 0, n) // document number of each index
	for i := 0; i < n; i += 1000 {
		var docs []store.Document
		for j := i; j < min(i+1000, n); j++ {
			cents[j], secs[j] = 1+rng.Int64N(100000), base+rng.Int64N(3*365*86400)
			at := time.Unix(secs[j], 0).UTC().Format(time.RFC3339)
			docs = append(docs, store.Document{Body: []byte(fmt.Sprintf(`{"price":"%d.%02d","at":"%s"}`, cents[j]/100, cents[j]%100, at))})
		}
		refs, err := s.PutBatch(context.Background(), docs)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range refs {
			nums = append(nums, r.Num)
		}
	}
	if err := s.Compact(context.Background()); err != nil {
		b.Fatal(err)
	}
	pids, _ := ix.Paths(canon.MustParsePointer("/price"))
	tids, _ := ix.Paths(canon.MustParsePointer("/at"))
	fields := []struct {
		name string
		ids  []uint32
		typ  byte
		vals []int64
		key  func(v int64) []byte // the sortable value of v
	}{
		{"price", pids, typeNumber, cents, func(v int64) []byte {
			k, _ := AppendDecimalKey(nil, apd.New(v, -2))
			return k
		}},
		{"at", tids, typeInst, secs, func(v int64) []byte {
			return appendSortableInstant(nil, canon.Instant{T: time.Unix(v, 0)})
		}},
	}
	for _, f := range fields {
		sorted := slices.Sorted(slices.Values(f.vals))
		at := func(frac float64) int64 { return sorted[max(0, int(math.Ceil(frac*float64(n)))-1)] }
		for _, q := range []struct {
			name   string
			lo, hi int64
		}{
			{"lte-0.1pct", math.MinInt64, at(0.001)},
			{"lte-10pct", math.MinInt64, at(0.10)},
			{"lte-50pct", math.MinInt64, at(0.50)},
			{"lte-99.9pct", math.MinInt64, at(0.999)},
			{"between-1pct", at(0.50), at(0.51)},
		} {
			var lo []byte
			if q.lo != math.MinInt64 {
				lo = f.key(q.lo)
			}
			end := append(f.key(q.hi), 0) // hi inclusive: both keys are prefix-free
			want := roaring.New()
			for i, v := range f.vals {
				if v >= q.lo && v <= q.hi {
					want.Add(nums[i])
				}
			}
			values := func() (*roaring.Bitmap, error) {
				rs, err := ix.r.Ranges()
				if err != nil {
					return nil, err
				}
				defer rs.Close()
				sc := rangeScanner{rs: rs, typ: f.typ}
				for _, id := range f.ids {
					if err := sc.values(id, lo, end); err != nil {
						return nil, err
					}
				}
				return sc.out.Bitmap(), nil
			}
			buckets := func() (*roaring.Bitmap, error) {
				r, _, err := ix.scanRange(f.ids, f.typ, lo, end, nil) // not the cached answer
				return r.Docs, err
			}
			for _, way := range []struct {
				name   string
				lookup func() (*roaring.Bitmap, error)
			}{{"values", values}, {"buckets", buckets}} {
				got, err := way.lookup()
				if err != nil {
					b.Fatal(err)
				}
				if !got.Equals(want) {
					b.Fatalf("%s %s %s: %d documents, want %d", f.name, q.name, way.name, got.GetCardinality(), want.GetCardinality())
				}
				b.Run(f.name+"/"+q.name+"/"+way.name, func(b *testing.B) {
					for range b.N {
						if _, err := way.lookup(); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(got.GetCardinality()), "docs")
				})
			}
		}
	}
}
