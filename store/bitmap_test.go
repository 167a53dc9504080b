package store

import (
	"fmt"
	"os"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/cockroachdb/pebble/v2"
	"pgregory.net/rapid"
)

// openRapid opens a small store for one rapid check, removed when the
// check ends (rapid.T has no TempDir).
func openRapid(t *rapid.T) *Store {
	dir, err := os.MkdirTemp("", "aqlstore-rapid-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s, err := Open(dir, &Options{NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestBitmapMergeMatchesModel applies random add/remove operands to a few
// posting keys, with flushes and compactions in between (so Pebble merges
// partial runs of operands), and compares every read with a model.
func TestBitmapMergeMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := openRapid(t)
		model := map[string]map[uint32]bool{}
		for step := rapid.IntRange(1, 60).Draw(t, "steps"); step > 0; step-- {
			stepOperand(t, s, model, 3, 300, 5)
			if rapid.IntRange(0, 9).Draw(t, "compact") == 0 {
				if err := s.kv.compact(); err != nil {
					t.Fatal(err)
				}
			}
			checkModel(t, s, model)
		}
	})
}

// stepOperand draws an add or a clear of 1 to maxBits bits below maxBit
// under one of keys keys, applies it and records it in model.
func stepOperand(t *rapid.T, s *Store, model map[string]map[uint32]bool, keys int, maxBit uint32, maxBits int) {
	key := fmt.Sprintf("Xk%d", rapid.IntRange(0, keys-1).Draw(t, "key"))
	bits := rapid.SliceOfN(rapid.Uint32Range(0, maxBit), 1, maxBits).Draw(t, "bits")
	add := rapid.Bool().Draw(t, "add")
	applyOperand(t, s, key, bits, add)
	if model[key] == nil {
		model[key] = map[uint32]bool{}
	}
	for _, b := range bits {
		model[key][b] = add
	}
}

func applyOperand(t *rapid.T, s *Store, key string, bits []uint32, add bool) {
	b := s.kv.newBatch()
	w := &IndexWriter{b: b}
	bm := roaring.BitmapOf(bits...)
	var err error
	if add && rapid.Bool().Draw(t, "sorted") {
		err = w.AddSorted([]byte(key), bm.ToArray())
	} else if add {
		err = w.AddBits([]byte(key), bm)
	} else {
		err = w.RemoveBits([]byte(key), bm)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := s.kv.apply(b, false); err != nil {
		t.Fatal(err)
	}
	_ = b.wait()
}

func checkModel(t *rapid.T, s *Store, model map[string]map[uint32]bool) {
	for key, want := range model {
		got, err := s.IndexReader().Bitmap([]byte(key))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for bit, set := range want {
			if set {
				n++
				if !got.Contains(bit) {
					t.Fatalf("%s lost bit %d: %v", key, bit, got)
				}
			}
		}
		if int(got.GetCardinality()) != n {
			t.Fatalf("%s has %d bits, want %d: %v", key, got.GetCardinality(), n, got)
		}
	}
}

// TestEncodeSortedOperand checks the direct encoder against roaring: the
// bytes it writes decode to exactly the numbers given, and it declines
// (rather than writing a worse encoding) whenever roaring would choose a
// run or bitmap container.
func TestEncodeSortedOperand(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nums []uint32
		switch rapid.IntRange(0, 2).Draw(t, "shape") {
		case 0: // sparse, across containers
			nums = rapid.SliceOfDistinct(rapid.Uint32(), func(v uint32) uint32 { return v }).Draw(t, "nums")
		case 1: // clustered, with runs
			base := rapid.Uint32Range(0, 1<<20).Draw(t, "base")
			for _, d := range rapid.SliceOfN(rapid.Uint32Range(0, 300), 0, 200).Draw(t, "deltas") {
				nums = append(nums, base+d)
			}
		default: // one dense block: too many for an array container
			for i := range uint32(rapid.IntRange(4000, 4200).Draw(t, "n")) {
				nums = append(nums, i*2)
			}
		}
		want := roaring.BitmapOf(nums...)
		sorted := want.ToArray()
		op, ok := encodeSortedOperand([]byte{0xAA}, sorted)
		if op[0] != 0xAA {
			t.Fatal("encoder overwrote the prefix of dst")
		}
		optimized := want.Clone()
		optimized.RunOptimize()
		hasRunOrBitmap := optimized.HasRunCompression() || want.GetSerializedSizeInBytes() > uint64(8+8*len(sorted)+2*len(sorted))
		if !ok {
			if !hasRunOrBitmap && len(sorted) > 0 && !anyContainerOver(sorted, 4096) {
				t.Fatalf("declined %v though roaring would use array containers", sorted)
			}
			return
		}
		set, clear, err := decodeOperand(op[1:])
		if err != nil {
			t.Fatal(err)
		}
		if !set.Equals(want) || !clear.IsEmpty() {
			t.Fatalf("decoded %v, want %v", set, want)
		}
	})
}

func anyContainerOver(nums []uint32, limit int) bool {
	count := map[uint32]int{}
	for _, n := range nums {
		count[n>>16]++
		if count[n>>16] > limit {
			return true
		}
	}
	return false
}

// TestBitmapMergeOfSets merges random set-only operands the way Pebble
// does (the first through Merge, then newer and older ones in any order)
// and checks the result against roaring's union: the same numbers, and
// the same bytes as roaring would write, whether the merge read the
// operands' arrays directly (sorted) or fell back to bitmaps (union:
// overlapping batches, runs, a dense container).
func TestBitmapMergeOfSets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := rapid.IntRange(2, 6).Draw(t, "operands")
		want := roaring.New()
		var vm pebble.ValueMerger
		for i := range ops {
			var nums []uint32
			switch rapid.IntRange(0, 3).Draw(t, "shape") {
			case 0: // a batch of its own: numbers after the last batch's
				base := uint32(i) * 70000
				nums = rapid.SliceOfNDistinct(rapid.Uint32Range(base, base+69999), 1, 20, func(v uint32) uint32 { return v }).Draw(t, "nums")
			case 1: // anywhere, overlapping other operands
				nums = rapid.SliceOfNDistinct(rapid.Uint32Range(0, 200), 1, 20, func(v uint32) uint32 { return v }).Draw(t, "nums")
			case 2: // a run
				start := rapid.Uint32Range(0, 1000).Draw(t, "start")
				for v := range uint32(rapid.IntRange(5, 50).Draw(t, "len")) {
					nums = append(nums, start+v)
				}
			default: // a dense container
				for v := range uint32(rapid.IntRange(4097, 5000).Draw(t, "n")) {
					nums = append(nums, 2*v)
				}
			}
			bm := roaring.BitmapOf(nums...)
			want.Or(bm)
			op, err := encodeOperand(nil, bm, nil)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case vm == nil:
				vm, err = bitmapMerger.Merge(nil, op)
			case rapid.Bool().Draw(t, "older"):
				err = vm.MergeOlder(op)
			default:
				err = vm.MergeNewer(op)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		out, _, err := vm.Finish(rapid.Bool().Draw(t, "includesBase"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeBitmap(out)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equals(want) {
			t.Fatalf("merged %v, want %v", got, want)
		}
		wantBytes, _ := encodeOperand(nil, want, nil)
		if string(out) != string(wantBytes) {
			t.Fatalf("merged bytes differ from roaring's for %v", want)
		}
	})
}
