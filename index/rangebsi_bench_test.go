package index

// Range predicates: the index's ordered value → bitmap postings (family
// 'r', one Pebble key per distinct (path, sortable value), merged over a
// key range by rangeScan) measured side by side with a roaring64
// bit-sliced index (BSI) over the same values, as issue 4 item 2 asks.
//
//	go test ./index -run '^$' -bench BenchmarkRangeBSI -benchtime 20x -count 3 -benchmem
//
// The corpus is AQLSTORE_RANGE_DOCS documents (default 200,000), each with
// a decimal-string price (uniform cents 0.01–1000.00, ~100k distinct
// values) and an RFC 3339 instant (seconds over three years). The store is
// built with index.Open, in batches of 1000, then compacted; the BSIs are
// built in memory over the same document numbers (price as int64 cents,
// instant as Unix nanoseconds). Before anything is timed, every query's
// result from the postings, the in-memory BSI and both deserialized BSIs
// is checked against the brute-force answer.
//
// Sub-benchmarks, per field (price, at) and query (lte at 0.1%, 1%, 10%
// selectivity, and a 1% window "between" in the middle of the values):
//
//	postings     ix.NumberRange / ix.InstantRange as read on a cache miss: Pebble scan, warm
//	bsi          BSI.CompareValue on the in-memory BSI, warm
//	bsi-readfrom BSI.ReadFrom (copying) from its WriteTo bytes, then compare:
//	             the per-query cost of a persisted BSI nobody caches
//	bsi-unsafe   the same, but each bitmap loaded with FromUnsafeBytes
//	             (zero-copy views over the bytes), then compare
//
// and per field: the bytes of each structure (postings-scan reads every
// range posting of the path and reports their key+value bytes;
// bsi-writeto serializes the BSI and reports its bytes) and the cost to
// build the BSI (bsi-build, ns per document).
//
// Two more BSI encodings are measured the same way, without repeating the
// postings benchmarks: price-f64bits (the order-preserving float64 bits a
// BSI over numbers of unknown scale would need, 64 planes) and at-seconds
// (Unix seconds, 32 planes).
//
// Each query sub-benchmark reports its result cardinality as "docs".

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/cockroachdb/apd/v3"
)

// rangeField is one indexed field of the corpus and its BSI.
type rangeField struct {
	name    string
	variant bool     // another BSI encoding of a field measured before: no postings benchmarks
	ids     []uint32 // path ids of the field
	vals    []int64  // per document (index i ↔ nums[i]): cents or Unix nanos
	bsi     *roaring64.BSI
	bsiData []byte // bsi.WriteTo
	// postings returns the documents with a value in [lo, hi] through the
	// index's ordered postings.
	postings func(lo, hi int64) (*roaring.Bitmap, error)
}

// rangeQuery is an inclusive [lo, hi] over a field's int64 values; lo is
// math.MinInt64 for "lte hi".
type rangeQuery struct {
	name   string
	lo, hi int64
}

func rangeDocs(b *testing.B) int {
	n := 200_000
	if v := os.Getenv("AQLSTORE_RANGE_DOCS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			b.Fatalf("AQLSTORE_RANGE_DOCS=%q: want an integer ≥ 1000", v)
		}
	}
	return n
}

func BenchmarkRangeBSI(b *testing.B) {
	n := rangeDocs(b)
	ctx := context.Background()
	s, ix, err := Open(b.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()

	// The corpus.
	rng := rand.New(rand.NewPCG(4, 2))
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	const span = 3 * 365 * 24 * 3600
	nums := make([]uint32, n)
	cents := make([]int64, n)
	nanos := make([]int64, n)
	start := time.Now()
	batch := make([]store.Document, 0, 1000)
	for i := 0; i < n; {
		batch = batch[:0]
		first := i
		for ; i < n && len(batch) < cap(batch); i++ {
			c := 1 + rng.Int64N(100_000)
			sec := base + rng.Int64N(span)
			cents[i], nanos[i] = c, sec*1e9
			body := fmt.Sprintf(`{"offer_id":"o-%d","price":{"amount":"%d.%02d"},"at":"%s"}`,
				i, c/100, c%100, time.Unix(sec, 0).UTC().Format(time.RFC3339))
			batch = append(batch, store.Document{Body: []byte(body)})
		}
		refs, err := s.PutBatch(ctx, batch)
		if err != nil {
			b.Fatal(err)
		}
		for j, r := range refs {
			nums[first+j] = r.Num
		}
	}
	loaded := time.Since(start)
	if err := s.Compact(ctx); err != nil {
		b.Fatal(err)
	}
	du, err := s.DiskUsage()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("corpus: %d documents put in %v (%.0f docs/s, NoSync); after compaction: index %d B, documents %d B (DiskUsage, compressed sstables)",
		n, loaded.Round(time.Millisecond), float64(n)/loaded.Seconds(), du.Index, du.Documents)

	pids, _ := ix.Paths(canon.MustParsePointer("/price/amount"))
	tids, _ := ix.Paths(canon.MustParsePointer("/at"))
	if len(pids) != 1 || len(tids) != 1 {
		b.Fatalf("path ids: /price/amount %v, /at %v", pids, tids)
	}
	fields := []*rangeField{
		{name: "price", ids: pids, vals: cents, postings: func(lo, hi int64) (*roaring.Bitmap, error) {
			b := NumberBounds{Hi: apd.New(hi, -2)}
			if lo != math.MinInt64 {
				b.Lo = apd.New(lo, -2)
			}
			return ix.readNumberRange(pids, b)
		}},
		{name: "at", ids: tids, vals: nanos, postings: func(lo, hi int64) (*roaring.Bitmap, error) {
			b := InstantBounds{Hi: &canon.Instant{T: time.Unix(0, hi)}}
			if lo != math.MinInt64 {
				b.Lo = &canon.Instant{T: time.Unix(0, lo)}
			}
			return ix.readInstantRange(tids, b)
		}},
		// The scale of a decimal string is not known to the index: a
		// general BSI over numbers would hold the order-preserving float64
		// bits (the 'r' key's encoding), 64 planes instead of 18.
		{name: "price-f64bits", variant: true, ids: pids, vals: mapVals(cents, func(c int64) int64 {
			return sortableFloatInt(centsFloat(c))
		}), postings: func(lo, hi int64) (*roaring.Bitmap, error) {
			b := NumberBounds{Hi: floatDecimal(unsortableFloatInt(hi))}
			if lo != math.MinInt64 {
				b.Lo = floatDecimal(unsortableFloatInt(lo))
			}
			return ix.readNumberRange(pids, b)
		}},
		// Instants as Unix seconds: 32 planes instead of 62 (an encoding
		// that would need the nanoseconds elsewhere).
		{name: "at-seconds", variant: true, ids: tids, vals: mapVals(nanos, func(ns int64) int64 { return ns / 1e9 }),
			postings: func(lo, hi int64) (*roaring.Bitmap, error) {
				b := InstantBounds{Hi: &canon.Instant{T: time.Unix(hi, 0)}}
				if lo != math.MinInt64 {
					b.Lo = &canon.Instant{T: time.Unix(lo, 0)}
				}
				return ix.readInstantRange(tids, b)
			}},
	}

	for _, f := range fields {
		f.bsi = buildBSI(nums, f.vals)
		var buf bytes.Buffer
		if _, err := f.bsi.WriteTo(&buf); err != nil {
			b.Fatal(err)
		}
		f.bsiData = buf.Bytes()

		sorted := slices.Clone(f.vals)
		slices.Sort(sorted)
		at := func(frac float64) int64 { return sorted[max(0, int(math.Ceil(frac*float64(n)))-1)] }
		queries := []rangeQuery{
			{"lte-0.1pct", math.MinInt64, at(0.001)},
			{"lte-1pct", math.MinInt64, at(0.01)},
			{"lte-10pct", math.MinInt64, at(0.10)},
			{"between-1pct", at(0.50), at(0.51)},
		}

		// Every structure must give the brute-force answer.
		for _, q := range queries {
			want := roaring.New()
			for i, v := range f.vals {
				if v >= q.lo && v <= q.hi {
					want.Add(nums[i])
				}
			}
			got, err := f.postings(q.lo, q.hi)
			if err != nil {
				b.Fatal(err)
			}
			if !got.Equals(want) {
				b.Fatalf("%s %s: postings give %d documents, brute force %d", f.name, q.name, got.GetCardinality(), want.GetCardinality())
			}
			for name, load := range map[string]func() (*roaring64.BSI, error){
				"bsi":          func() (*roaring64.BSI, error) { return f.bsi, nil },
				"bsi-readfrom": func() (*roaring64.BSI, error) { return bsiReadFrom(f.bsiData) },
				"bsi-unsafe":   func() (*roaring64.BSI, error) { return bsiUnsafe(f.bsiData) },
			} {
				bsi, err := load()
				if err != nil {
					b.Fatalf("%s %s: %v", f.name, name, err)
				}
				if got := to32(compareBSI(bsi, q)); !got.Equals(want) {
					b.Fatalf("%s %s %s: %d documents, brute force %d", f.name, q.name, name, got.GetCardinality(), want.GetCardinality())
				}
			}
		}

		// Bytes and build cost.
		b.Run(f.name+"/postings-scan", func(b *testing.B) {
			if f.variant {
				b.Skip("same postings as the field above")
			}
			var keys, kb, vb int
			for range b.N {
				keys, kb, vb = 0, 0, 0
				lo := appendPathKey(nil, famRange, f.ids[0])
				hi := appendPathKey(nil, famRange, f.ids[0]+1)
				err := ix.r.Scan(lo, hi, func(key, value []byte) error {
					keys, kb, vb = keys+1, kb+len(key), vb+len(value)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(keys), "keys")
			b.ReportMetric(float64(kb+vb), "B(key+value)")
			b.ReportMetric(float64(vb), "B(values)")
		})
		b.Run(f.name+"/bsi-writeto", func(b *testing.B) {
			var size int64
			for range b.N {
				var buf bytes.Buffer
				buf.Grow(len(f.bsiData))
				if size, err = f.bsi.WriteTo(&buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size), "B(bsi)")
			b.ReportMetric(float64(f.bsi.BitCount()+1), "planes")
		})
		b.Run(f.name+"/bsi-build", func(b *testing.B) {
			for range b.N {
				buildBSI(nums, f.vals)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/doc")
		})

		// Queries.
		for _, q := range queries {
			b.Run(f.name+"/"+q.name+"/postings", func(b *testing.B) {
				if f.variant {
					b.Skip("same postings as the field above")
				}
				var card uint64
				for range b.N {
					bm, err := f.postings(q.lo, q.hi)
					if err != nil {
						b.Fatal(err)
					}
					card = bm.GetCardinality()
				}
				b.ReportMetric(float64(card), "docs")
			})
			b.Run(f.name+"/"+q.name+"/bsi", func(b *testing.B) {
				var card uint64
				for range b.N {
					card = compareBSI(f.bsi, q).GetCardinality()
				}
				b.ReportMetric(float64(card), "docs")
			})
			b.Run(f.name+"/"+q.name+"/bsi-readfrom", func(b *testing.B) {
				var card uint64
				for range b.N {
					bsi, err := bsiReadFrom(f.bsiData)
					if err != nil {
						b.Fatal(err)
					}
					card = compareBSI(bsi, q).GetCardinality()
				}
				b.ReportMetric(float64(card), "docs")
			})
			b.Run(f.name+"/"+q.name+"/bsi-unsafe", func(b *testing.B) {
				var card uint64
				for range b.N {
					bsi, err := bsiUnsafe(f.bsiData)
					if err != nil {
						b.Fatal(err)
					}
					card = compareBSI(bsi, q).GetCardinality()
				}
				b.ReportMetric(float64(card), "docs")
			})
		}
		// The zero-copy loads must not have written into the bytes.
		var again bytes.Buffer
		if _, err := f.bsi.WriteTo(&again); err != nil || !bytes.Equal(again.Bytes(), f.bsiData) {
			b.Fatalf("%s: the BSI bytes changed under the benchmarks (%v)", f.name, err)
		}
	}
}

// centsFloat is the float64 nearest the decimal string of c cents
// (ParseFloat of the text), for the float64-bits BSI variant.
func centsFloat(c int64) float64 {
	f, err := strconv.ParseFloat(fmt.Sprintf("%d.%02d", c/100, c%100), 64)
	if err != nil {
		panic(err)
	}
	return f
}

func mapVals(vals []int64, fn func(int64) int64) []int64 {
	out := make([]int64, len(vals))
	for i, v := range vals {
		out[i] = fn(v)
	}
	return out
}

// sortableFloatInt is f's bits as an order-preserving int64 (the
// encoding a BSI over numbers of unknown scale would need).
func sortableFloatInt(f float64) int64 {
	bits := math.Float64bits(f)
	if f < 0 || (f == 0 && math.Signbit(f)) {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	if f == 0 {
		bits = 1 << 63 // -0 and 0 are one value
	}
	return int64(bits ^ 1<<63)
}

// floatDecimal is the decimal of f's shortest text, as a number bound.
func floatDecimal(f float64) *apd.Decimal {
	d, _, err := apd.NewFromString(strconv.FormatFloat(f, 'g', -1, 64))
	if err != nil {
		panic(err)
	}
	return d
}

func unsortableFloatInt(v int64) float64 {
	u := uint64(v) ^ 1<<63
	if u&(1<<63) != 0 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

func buildBSI(nums []uint32, vals []int64) *roaring64.BSI {
	bsi := roaring64.NewDefaultBSI()
	for i, v := range vals {
		bsi.SetValue(uint64(nums[i]), v)
	}
	bsi.RunOptimize()
	return bsi
}

func compareBSI(bsi *roaring64.BSI, q rangeQuery) *roaring64.Bitmap {
	if q.lo == math.MinInt64 {
		return bsi.CompareValue(1, roaring64.LE, q.hi, 0, nil)
	}
	return bsi.CompareValue(1, roaring64.RANGE, q.lo, q.hi, nil)
}

// bsiReadFrom loads a BSI from its WriteTo bytes, copying them.
func bsiReadFrom(data []byte) (*roaring64.BSI, error) {
	bsi := roaring64.NewDefaultBSI()
	_, err := bsi.ReadFrom(bytes.NewReader(data))
	return bsi, err
}

// bsiUnsafe loads a BSI from its WriteTo bytes (the existence bitmap, then
// one bitmap per plane) as views over data.
func bsiUnsafe(data []byte) (*roaring64.BSI, error) {
	var bms []roaring64.Bitmap
	for len(data) > 0 {
		var bm roaring64.Bitmap
		p, err := bm.FromUnsafeBytes(data)
		if err != nil {
			return nil, err
		}
		bms = append(bms, bm)
		data = data[p:]
	}
	bsi := roaring64.NewDefaultBSI()
	bsi.FromBitmaps(bms)
	return bsi, nil
}

// to32 converts a result to the index's 32-bit document numbers.
func to32(bm *roaring64.Bitmap) *roaring.Bitmap {
	out := roaring.New()
	it := bm.Iterator()
	for it.HasNext() {
		v := it.Next()
		if v > math.MaxUint32 {
			panic("document number beyond uint32")
		}
		out.Add(uint32(v))
	}
	return out
}
