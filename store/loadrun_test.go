package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
)

// TestLoadTablesSkipLevelZero: a load into a store whose memtable holds
// only the keys Open wrote ingests its documents' tables into the last
// level, not behind the memtable into level 0, from where they would be
// compacted (read, merged and rewritten) right after the load.
func TestLoadTablesSkipLevelZero(t *testing.T) {
	s := openTest(t, nil)
	loadNumbered(t, s, 500, &LoadOptions{RunDocs: 100})
	m := s.kv.db.Metrics()
	if l0, total := levelBytes(m.Levels[:1]), levelBytes(m.Levels[:]); l0*10 > total {
		t.Errorf("level 0 holds %d of the %d table bytes after the load", l0, total)
	}
	if err := s.kv.db.Flush(); err != nil {
		t.Fatal(err)
	}
	m = s.kv.db.Metrics()
	total := levelBytes(m.Levels[:])
	// A table that overlaps the memtable is queued behind it and flushed
	// into level 0 (Pebble's flushable ingest).
	if via := int64(m.Flush.AsIngestBytes); via*10 > total {
		t.Errorf("%d of the %d table bytes went through the memtable into level 0", via, total)
	}
	verifyOK(t, s)
}

// loadNumbered bulk loads n small documents, numbered in their body,
// into s through one Loader with opts.
func loadNumbered(t *testing.T, s *Store, n int, opts *LoadOptions) {
	t.Helper()
	ctx := context.Background()
	l, err := s.NewLoader(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		body := fmt.Sprintf(`{"n":%d,"text":%q}`, i, strings.Repeat(fmt.Sprint(i), 40))
		pd, err := s.Prepare(ctx, Document{Body: []byte(body)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Add(pd); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Commit(); err != nil {
		t.Fatal(err)
	}
}

func levelBytes(levels []pebble.LevelMetrics) int64 {
	n := int64(0)
	for _, lv := range levels {
		n += lv.TablesSize
	}
	return n
}

// TestRunSortEqualsBytesOrder sets random keys — bytes that order below
// and above the zero padding, lengths around the 8-byte steps a run
// sorts by, keys that extend a part of another, keys set twice — and checks that a
// sorted run lists them as a stable sort by bytes.Compare does, each key
// once with the value set last.
func TestRunSortEqualsBytesOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := newLoadRun()
		type kv struct{ k, v string }
		var set []kv
		for i := range rapid.IntRange(0, 200).Draw(t, "keys") {
			var k []byte
			again := rapid.IntRange(0, 4).Draw(t, "again")
			if len(set) > 0 && again == 0 {
				k = []byte(rapid.SampledFrom(set).Draw(t, "old").k)
			} else if len(set) > 0 && again == 1 { // a long shared prefix
				old := rapid.SampledFrom(set).Draw(t, "old").k
				k = []byte(old[:rapid.IntRange(1, len(old)).Draw(t, "cut")])
				for range rapid.IntRange(0, 20).Draw(t, "more") {
					k = append(k, rapid.SampledFrom([]byte{0, 1, 'a', 0xff}).Draw(t, "byte"))
				}
			} else {
				k = []byte{rapid.SampledFrom([]byte("DKX")).Draw(t, "family")}
				for range rapid.IntRange(0, 40).Draw(t, "len") {
					k = append(k, rapid.SampledFrom([]byte{0, 1, 'a', 0xff}).Draw(t, "byte"))
				}
			}
			v := fmt.Sprint(i)
			r.set(k, []byte(v))
			set = append(set, kv{string(k), v})
		}
		want := slices.Clone(set)
		slices.SortStableFunc(want, func(a, b kv) int { return strings.Compare(a.k, b.k) })
		var last []kv // of equal keys, the one set last
		for i, e := range want {
			if i+1 == len(want) || want[i+1].k != e.k {
				last = append(last, e)
			}
		}
		parts := r.sort()
		ranges := slices.Sorted(maps.Keys(parts))
		var got []kv
		for _, rg := range ranges {
			for i := range parts[rg] {
				e := r.entry(&parts[rg][i])
				got = append(got, kv{string(e.key), string(e.value)})
			}
		}
		if !slices.Equal(got, last) {
			t.Fatalf("sorted run:\n%q\nwant\n%q", got, last)
		}
	})
}

// TestLoadTablesCompression loads documents into a store that compresses
// with zstd and checks the ingested tables' compression: the load's own
// profile, not the store's level 3 (loadCompression).
func TestLoadTablesCompression(t *testing.T) {
	s := openTest(t, nil)
	loadNumbered(t, s, 300, nil)
	levels, err := s.kv.db.SSTables(pebble.WithProperties())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, lv := range levels {
		for _, tb := range lv {
			if name := tb.Properties.CompressionName; name == sstable.GoodCompression.Name {
				t.Errorf("table %s is compressed with %s (%s), want %s", tb.FileNum, name,
					tb.Properties.CompressionStats, loadCompression.Name)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no tables")
	}
}

// TestLoadIndexTablesCompression: a load's index tables, whose posting
// lists are roaring bitmaps already, are compressed with the fast
// profile (loadIndexCompression), its other tables with zstd
// (loadCompression): a bulk load through an indexer, whose merge picks
// the profile by the family of each range.
func TestLoadIndexTablesCompression(t *testing.T) {
	s := openTest(t, &Options{NoSync: true, Indexer: &extractingIndexer{}})
	loadNumbered(t, s, 2000, &LoadOptions{RunDocs: 700})
	levels, err := s.kv.db.SSTables(pebble.WithProperties())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[byte]bool{}
	for _, lv := range levels {
		for _, tb := range lv {
			fam := tb.Smallest.UserKey[0]
			want := loadCompression.Name
			if fam == IndexPrefix {
				want = loadIndexCompression.Name
			} else if fam != prefixDoc {
				continue
			}
			seen[fam] = true
			if name := tb.Properties.CompressionName; name != want {
				t.Errorf("table of family %q is compressed with %s, want %s", fam, name, want)
			}
		}
	}
	if !seen[IndexPrefix] || !seen[prefixDoc] {
		t.Fatalf("ingested tables not found: %v", seen)
	}
}

// TestLoadTablesInBottomLevel: a load of several runs into a new store,
// records and postings, lands every table but the meta keys' (flushed
// from the memtable) in the last level: nothing of it is left to
// rewrite.
func TestLoadTablesInBottomLevel(t *testing.T) {
	s := openTest(t, &Options{NoSync: true, Indexer: &extractingIndexer{}})
	loadNumbered(t, s, 1000, &LoadOptions{RunDocs: 150})
	levels, err := s.kv.db.SSTables()
	if err != nil {
		t.Fatal(err)
	}
	bottom := len(levels) - 1
	fams := map[byte]int{}
	for lv, tables := range levels {
		for _, tb := range tables {
			fam := tb.Smallest.UserKey[0]
			if fam == prefixMeta {
				continue
			}
			fams[fam]++
			if lv != bottom {
				t.Errorf("table of family %q (%q to %q) in level %d, want %d", fam, tb.Smallest.UserKey, tb.Largest.UserKey, lv, bottom)
			}
		}
	}
	for _, fam := range []byte{prefixDoc, prefixColumn, prefixReceipt, IndexPrefix} {
		if fams[fam] == 0 {
			t.Errorf("no table of family %q: %v", fam, fams)
		}
	}
}

// TestPostingGapsRoundTrip: a run's posting lists, held as gaps, read
// back as the numbers written, at any gap up to the largest number.
func TestPostingGapsRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		set := map[uint32]bool{}
		for _, n := range rapid.SliceOf(rapid.OneOf(rapid.Uint32Range(0, 300), rapid.Uint32())).Draw(t, "nums") {
			set[n] = true
		}
		nums := slices.Sorted(maps.Keys(set))
		prefix := []uint32{7}
		got, err := appendNumbers(slices.Clone(prefix), appendGaps([]byte("x"), nums)[1:])
		if err != nil {
			t.Fatal(err)
		}
		if want := append(prefix, nums...); !slices.Equal(got, want) {
			t.Fatalf("read back %v, wrote %v", got, want)
		}
	})
}

// TestPostingGapsCorrupt: a cut or oversized gap is an error naming the
// corruption, not a wrong list.
func TestPostingGapsCorrupt(t *testing.T) {
	for _, v := range [][]byte{{0x80}, {1, 0xff, 0xff}, {0xff, 0xff, 0xff, 0xff, 0x7f}} {
		if _, err := appendNumbers(nil, v); !errors.Is(err, ErrCorrupt) {
			t.Errorf("appendNumbers(% x): err %v, want ErrCorrupt", v, err)
		}
	}
}

// BenchmarkPostingGaps writes and reads a posting list of 65,536
// numbers as a load's run holds it, gaps mostly below 100.
func BenchmarkPostingGaps(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	nums := make([]uint32, 0, 1<<16)
	n := uint32(0)
	for range 1 << 16 {
		if r.IntN(10) == 0 {
			n += uint32(r.IntN(5000)) + 1
		} else {
			n += uint32(r.IntN(100)) + 1
		}
		nums = append(nums, n)
	}
	v := appendGaps(nil, nums)
	b.Run("write", func(b *testing.B) {
		var dst []byte
		for b.Loop() {
			dst = appendGaps(dst[:0], nums)
		}
	})
	b.Run("read", func(b *testing.B) {
		var dst []uint32
		for b.Loop() {
			var err error
			if dst, err = appendNumbers(dst[:0], v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
