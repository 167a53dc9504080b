package store

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
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

// TestRunSortSharedPrefixes: a run orders keys that share long prefixes
// and then differ late, or are prefixes of each other, as bytes order
// them: the sort skips bytes every key of a group shares and reloads
// eight bytes at a time, and an off-by-one in either shows here, where
// keys tie for many bytes and differ in the next.
func TestRunSortSharedPrefixes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := newLoadRun()
		prefixes := []string{"Xq" + strings.Repeat("h", 30), "Xq" + strings.Repeat("h", 9), "Xq"}
		var keys []string
		for range rapid.IntRange(0, 300).Draw(t, "keys") {
			k := []byte(rapid.SampledFrom(prefixes).Draw(t, "prefix"))
			for range rapid.IntRange(0, 24).Draw(t, "tail") {
				k = append(k, rapid.SampledFrom([]byte{0, 1}).Draw(t, "byte"))
			}
			r.posting(k, []uint32{uint32(len(keys))})
			keys = append(keys, string(k))
		}
		var got []string
		for _, part := range r.sort() {
			for i := range part {
				got = append(got, string(r.key(&part[i])))
			}
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("sorted run:\n%q\nwant\n%q", got, want)
		}
	})
}

// TestCommonPrefix compares commonPrefix with a byte by byte count.
func TestCommonPrefix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1}), 0, 40).Draw(t, "a")
		b := rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1}), 0, 40).Draw(t, "b")
		want := 0
		for want < len(a) && want < len(b) && a[want] == b[want] {
			want++
		}
		if got := commonPrefix(a, b); got != want {
			t.Fatalf("commonPrefix(%v, %v) = %d, want %d", a, b, got, want)
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

// TestSpilledRunReadsBack: a range spilled to a file reads back entry
// for entry, keys, values and tags, whether an entry lies whole in the
// reader's buffer (read in place) or across its end (copied): the
// buffer sizes drawn make both happen, and values longer than the
// buffer too.
func TestSpilledRunReadsBack(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		r := newLoadRun()
		for range rapid.IntRange(0, 100).Draw(t, "keys") {
			k := append([]byte{'X', 'q'}, rapid.SliceOfN(rapid.Byte(), 0, 30).Draw(t, "key")...)
			if rapid.Bool().Draw(t, "posting") {
				r.posting(k, rapid.SliceOfNDistinct(rapid.Uint32(), 1, 60, rapid.ID[uint32]).Draw(t, "nums"))
			} else {
				r.set(k, rapid.SliceOfN(rapid.Byte(), 0, 100).Draw(t, "value"))
			}
		}
		parts := r.sort()
		ents := parts[rangeOf([]byte("Xq"))]
		path := filepath.Join(dir, "run")
		if err := r.spillRange(vfs.Default, path, ents); err != nil {
			t.Fatal(err)
		}
		f, err := vfs.Default.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s := &runSource{f: f, r: bufio.NewReaderSize(f, rapid.SampledFrom([]int{16, 40, 1 << 20}).Draw(t, "buffer"))}
		for i := range ents {
			want := r.entry(&ents[i])
			ok, err := s.next()
			if err != nil || !ok {
				t.Fatalf("entry %d of %d: ok %v, %v", i, len(ents), ok, err)
			}
			if !bytes.Equal(s.cur.key, want.key) || !bytes.Equal(s.cur.value, want.value) || s.cur.posting != want.posting {
				t.Fatalf("entry %d: read %q %q %v, spilled %q %q %v", i,
					s.cur.key, s.cur.value, s.cur.posting, want.key, want.value, want.posting)
			}
		}
		if ok, err := s.next(); ok || err != nil {
			t.Fatalf("after the last entry: ok %v, %v", ok, err)
		}
	})
}

// TestSourcesPopInOrder: the merge's heap yields its runs' entries by
// key, and of equal keys the earlier run's first, whatever order the
// runs come in.
func TestSourcesPopInOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type kv struct {
			k     string
			order int
		}
		var h sources
		var want []kv
		for order := range rapid.IntRange(0, 12).Draw(t, "runs") {
			r := newLoadRun()
			for _, k := range rapid.SliceOfDistinct(rapid.StringMatching(`X[a-c]{0,3}`), rapid.ID[string]).Draw(t, "keys") {
				r.set([]byte(k), nil)
				want = append(want, kv{k, order})
			}
			var ents []runEnt
			for _, part := range r.sort() {
				ents = append(ents, part...)
			}
			slices.SortFunc(ents, func(a, b runEnt) int { return bytes.Compare(r.key(&a), r.key(&b)) })
			s := &runSource{order: order, run: r, ents: ents}
			if ok, _ := s.next(); ok {
				h = append(h, s)
			}
		}
		h = rapid.Permutation(h).Draw(t, "start")
		h.init()
		var got []kv
		for len(h) > 0 {
			got = append(got, kv{string(h[0].cur.key), h[0].order})
			if err := advance(&h); err != nil {
				t.Fatal(err)
			}
		}
		slices.SortFunc(want, func(a, b kv) int {
			if c := strings.Compare(a.k, b.k); c != 0 {
				return c
			}
			return a.order - b.order
		})
		if !slices.Equal(got, want) {
			t.Fatalf("merged\n%v\nwant\n%v", got, want)
		}
	})
}
