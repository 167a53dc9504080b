package store

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"pgregory.net/rapid"
)

// drawBitmap draws a bitmap with array, bitmap and run containers over
// a few keys.
func drawBitmap(t *rapid.T) *roaring.Bitmap {
	bm := roaring.New()
	for c := rapid.IntRange(0, 4).Draw(t, "containers"); c > 0; c-- {
		hi := uint32(rapid.IntRange(0, 5).Draw(t, "key")) << 16
		switch rapid.IntRange(0, 2).Draw(t, "shape") {
		case 0: // sparse: an array container
			for _, v := range rapid.SliceOfN(rapid.Uint16(), 1, 50).Draw(t, "values") {
				bm.Add(hi | uint32(v))
			}
		case 1: // dense: a bitmap container
			for v := uint32(rapid.IntRange(0, 7).Draw(t, "phase")); v < 1<<16; v += 3 {
				bm.Add(hi | v)
			}
		default: // runs
			start := uint32(rapid.Uint16().Draw(t, "start"))
			for r := rapid.IntRange(1, 30).Draw(t, "runs"); r > 0 && start < 1<<16; r-- {
				end := min(start+uint32(rapid.IntRange(1, 300).Draw(t, "len")), 1<<16)
				bm.AddRange(uint64(hi|start), uint64(hi)+uint64(end))
				start = end + uint32(rapid.IntRange(1, 300).Draw(t, "gap"))
			}
		}
	}
	if rapid.Bool().Draw(t, "runOptimize") {
		bm.RunOptimize()
	}
	return bm
}

// TestCheckPortableAcceptsRoaring: every bitmap roaring writes passes.
func TestCheckPortableAcceptsRoaring(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b, err := drawBitmap(t).ToBytes()
		if err != nil {
			t.Fatal(err)
		}
		if err := checkPortable(b); err != nil {
			t.Fatalf("checkPortable(%x) = %v", b, err)
		}
	})
}

// TestCheckPortableRefusesDamage damages a bitmap's bytes (a byte
// changed, bytes cut or added) and checks that whatever checkPortable
// accepts, roaring reads and validates as sound and can run-optimize
// without a panic: it lets nothing through that roaring's own Validate
// refuses.
func TestCheckPortableRefusesDamage(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b, err := drawBitmap(t).ToBytes()
		if err != nil {
			t.Fatal(err)
		}
		switch rapid.IntRange(0, 3).Draw(t, "damage") {
		case 0, 1:
			i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			b[i] = rapid.Byte().Draw(t, "byte")
		case 2:
			b = b[:rapid.IntRange(0, len(b)-1).Draw(t, "cut")]
		default:
			b = append(b, rapid.SliceOfN(rapid.Byte(), 1, 8).Draw(t, "tail")...)
		}
		if checkPortable(b) != nil {
			return
		}
		bm := roaring.New()
		if err := bm.UnmarshalBinary(b); err != nil {
			t.Fatalf("checkPortable accepts %x, which roaring cannot read: %v", b, err)
		}
		if err := bm.Validate(); err != nil {
			t.Fatalf("checkPortable accepts %x, which roaring's Validate refuses: %v", b, err)
		}
		bm.RunOptimize()
	})
}

// TestCheckPortableRuns: runs that overlap, touch, come out of order or
// pass the container's end are refused; so is a cardinality that is not
// the runs'.
func TestCheckPortableRuns(t *testing.T) {
	bm := roaring.New()
	bm.AddRange(10, 20)
	bm.AddRange(30, 40)
	bm.RunOptimize()
	good, err := bm.ToBytes()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPortable(good); err != nil {
		t.Fatal(err)
	}
	// cookie with count (4) | run flags (1) | key, card-1 (4) | runs (2) | start, len-1 (4 each)
	const runs = 4 + 1 + 4 + 2
	for name, set := range map[string][2]uint16{
		"overlapping": {15, 9},    // second run 15-24, the first ends at 19
		"touching":    {20, 9},    // second run 20-29 continues the first
		"unordered":   {0, 9},     // second run before the first
		"past end":    {65530, 9}, // second run past 65535
		"wrong count": {30, 10},   // card 21 in the header, 22 in the runs
		"unchanged":   {30, 9},    // the control: passes
	} {
		b := append([]byte(nil), good...)
		b[runs+4], b[runs+5] = byte(set[0]), byte(set[0]>>8)
		b[runs+6], b[runs+7] = byte(set[1]), byte(set[1]>>8)
		if err := checkPortable(b); (err == nil) != (name == "unchanged") {
			t.Errorf("%s: checkPortable = %v", name, err)
		}
	}
}
