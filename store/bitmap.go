package store

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/cockroachdb/pebble/v2"
)

// Posting lists are roaring bitmaps of document numbers, kept under the
// 'X' prefix and updated with Pebble merge operands, so a put never reads
// a bitmap to add a bit to it.
//
// An operand is a pair (S, C) meaning "clear C, then set S": applied to x
// it gives (x − C) ∪ S. Two operands compose into one, (S1, C1) then
// (S2, C2) = ((S1 − C2) ∪ S2, C1 ∪ C2), so Pebble may merge any run of
// operands during compaction (includesBase false) and still be right. The
// oldest operand applied to nothing gives the bitmap itself.
//
// Layout: uvarint len(S) | S (roaring portable bytes) | C (the rest).

// bitmapMergerName is persisted by Pebble and can never change.
const bitmapMergerName = "aqlstore.bitmap.v1"

var bitmapMerger = &pebble.Merger{
	Name: bitmapMergerName,
	Merge: func(_, value []byte) (pebble.ValueMerger, error) {
		m := &bitmapMerge{}
		return m, m.MergeNewer(value)
	},
}

// bitmapMerge collects operands as copies: Pebble owns the slices it
// passes and may reuse them once the call returns.
type bitmapMerge struct {
	older [][]byte // oldest last
	newer [][]byte // newest last
}

func (m *bitmapMerge) MergeNewer(v []byte) error {
	m.newer = append(m.newer, append([]byte(nil), v...))
	return nil
}

func (m *bitmapMerge) MergeOlder(v []byte) error {
	m.older = append(m.older, append([]byte(nil), v...))
	return nil
}

func (m *bitmapMerge) Finish(includesBase bool) ([]byte, io.Closer, error) {
	if len(m.older)+len(m.newer) == 1 {
		return m.single(includesBase)
	}
	if out, ok, err := m.union(); ok || err != nil {
		return out, nil, err
	}
	set, clear := roaring.New(), roaring.New()
	apply := func(op []byte) error {
		s, c, err := decodeOperand(op)
		if err != nil {
			return err
		}
		set.AndNot(c)
		set.Or(s)
		clear.Or(c)
		return nil
	}
	for i := len(m.older) - 1; i >= 0; i-- {
		if err := apply(m.older[i]); err != nil {
			return nil, nil, err
		}
	}
	for _, op := range m.newer {
		if err := apply(op); err != nil {
			return nil, nil, err
		}
	}
	if includesBase {
		clear.Clear()
	}
	out, err := encodeOperand(nil, set, clear)
	return out, nil, err
}

// single finishes a merge of one operand, the usual case in a
// compaction: three postings in four hold the one batch that wrote them
// (a value only one document has). The operand is checked and kept as
// it is, its clear part dropped when nothing older is left for it to
// clear; decoding and encoding it again would give the same bitmaps.
func (m *bitmapMerge) single(includesBase bool) ([]byte, io.Closer, error) {
	op := append(m.older, m.newer...)[0]
	_, clear, err := splitOperand(op)
	if err != nil {
		return nil, nil, err
	}
	if includesBase {
		op = op[:len(op)-len(clear)]
	}
	return op, nil, nil
}

// union finishes a merge of operands that only set bits, a run of puts:
// the result is the union of their sets, in any order. The sets are read
// in place from the merger's own copies (FromBuffer: copy on write,
// never changed) and joined in one pass (FastOr), not decoded, copied
// and ORed one by one. ok is false when an operand clears bits.
func (m *bitmapMerge) union() (out []byte, ok bool, err error) {
	bms := make([]*roaring.Bitmap, 0, len(m.older)+len(m.newer))
	for _, ops := range [][][]byte{m.older, m.newer} {
		for _, op := range ops {
			set, clear, err := splitOperand(op)
			if err != nil {
				return nil, false, err
			}
			if len(clear) > 0 {
				return nil, false, nil
			}
			bm := roaring.New()
			if _, err := bm.FromBuffer(set); err != nil {
				return nil, false, fmt.Errorf("%w: posting bitmap: %v", ErrCorrupt, err)
			}
			bms = append(bms, bm)
		}
	}
	out, err = encodeOperand(nil, roaring.FastOr(bms...), nil)
	return out, true, err
}

// encodeOperand appends the operand (set, clear) to dst.
func encodeOperand(dst []byte, set, clear *roaring.Bitmap) ([]byte, error) {
	set.RunOptimize()
	s, err := set.ToBytes()
	if err != nil {
		return nil, err
	}
	dst = append(binary.AppendUvarint(dst, uint64(len(s))), s...)
	if clear == nil || clear.IsEmpty() {
		return dst, nil
	}
	clear.RunOptimize()
	c, err := clear.ToBytes()
	return append(dst, c...), err
}

// decodeOperand reads an operand; the bitmaps never alias op.
func decodeOperand(op []byte) (set, clear *roaring.Bitmap, err error) {
	s, c, err := splitOperand(op)
	if err != nil {
		return nil, nil, err
	}
	set, clear = roaring.New(), roaring.New()
	if err := set.UnmarshalBinary(s); err != nil {
		return nil, nil, fmt.Errorf("%w: posting bitmap: %v", ErrCorrupt, err)
	}
	if len(c) > 0 {
		if err := clear.UnmarshalBinary(c); err != nil {
			return nil, nil, fmt.Errorf("%w: posting bitmap: %v", ErrCorrupt, err)
		}
	}
	return set, clear, nil
}

// splitOperand returns the encoded set and clear bitmaps of op (clear
// empty when op has none), each checked whole and sound (checkPortable):
// UnmarshalBinary takes damaged containers that later panic in
// RunOptimize, i.e. inside a Pebble merge, so they are refused here,
// where the damage can still be reported.
func splitOperand(op []byte) (set, clear []byte, err error) {
	n, k := binary.Uvarint(op)
	if k <= 0 || uint64(len(op)-k) < n {
		return nil, nil, fmt.Errorf("%w: posting operand", ErrCorrupt)
	}
	set, clear = op[k:k+int(n)], op[k+int(n):]
	if err := checkPortable(set); err != nil {
		return nil, nil, fmt.Errorf("%w: posting bitmap: %v", ErrCorrupt, err)
	}
	if len(clear) > 0 {
		if err := checkPortable(clear); err != nil {
			return nil, nil, fmt.Errorf("%w: posting bitmap: %v", ErrCorrupt, err)
		}
	}
	return set, clear, nil
}

// decodeBitmap reads a stored (fully merged) posting list.
func decodeBitmap(v []byte) (*roaring.Bitmap, error) {
	set, _, err := decodeOperand(v)
	return set, err
}

// encodeSortedOperand appends the operand "set nums" (ascending, unique) to
// dst in roaring's portable format, without building a bitmap, when every
// container is an array container roaring would not turn into runs; it
// returns false otherwise and the caller builds the bitmap. Most postings
// of a batch hold one or a few document numbers, so this is the common
// case of an indexed put.
func encodeSortedOperand(dst []byte, nums []uint32) ([]byte, bool) {
	const cookieNoRun = 12346 // roaring's serialCookieNoRunContainer
	containers, n := 0, len(nums)
	for i := 0; i < n; {
		hi, runs, j := nums[i]>>16, 1, i+1
		for ; j < n && nums[j]>>16 == hi; j++ {
			if nums[j] != nums[j-1]+1 {
				runs++
			}
		}
		card := j - i
		if card > 4096 || 2+4*runs < 2*card { // a bitmap or run container
			return dst, false
		}
		containers++
		i = j
	}
	header := 8 + 8*containers
	size := header + 2*n
	dst = binary.AppendUvarint(dst, uint64(size))
	start := len(dst)
	dst = append(dst, make([]byte, size)...)
	out := dst[start:]
	binary.LittleEndian.PutUint32(out[0:], cookieNoRun)
	binary.LittleEndian.PutUint32(out[4:], uint32(containers))
	desc, offs, data := 8, 8+4*containers, header
	for i := 0; i < n; {
		hi, j := nums[i]>>16, i
		for ; j < n && nums[j]>>16 == hi; j++ {
			binary.LittleEndian.PutUint16(out[data+2*(j-i):], uint16(nums[j]))
		}
		binary.LittleEndian.PutUint16(out[desc:], uint16(hi))
		binary.LittleEndian.PutUint16(out[desc+2:], uint16(j-i-1))
		binary.LittleEndian.PutUint32(out[offs:], uint32(data))
		desc, offs, data = desc+4, offs+4, data+2*(j-i)
		i = j
	}
	return dst, true
}
