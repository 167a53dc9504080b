package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

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
		m := mergePool.Get().(*bitmapMerge)
		return m, m.MergeNewer(value)
	},
}

// mergePool keeps mergers and their buffers for the next key: a flush
// merges tens of thousands of keys one after another. A merger returns
// to it when Pebble closes the value Finish returned (Pebble reads the
// value until then), or at once when the value does not alias it.
var mergePool = sync.Pool{New: func() any { return &bitmapMerge{} }}

// maxPooledMerge is the largest buffer a merger keeps in the pool; a
// merge of a long posting list drops its buffer rather than hold it.
const maxPooledMerge = 64 << 10

// bitmapMerge collects operands as copies, end to end in one buffer:
// Pebble owns the slices it passes and may reuse them once the call
// returns. A flush merges a key's operands from every batch in the
// memtable, tens of thousands of keys per flush, so a copy costs an
// append, not an allocation.
type bitmapMerge struct {
	buf   []byte     // every operand's bytes
	older [][2]int32 // spans of buf, oldest last
	newer [][2]int32 // spans of buf, newest last
	nums  []uint32   // scratch of sorted: the operands' numbers
	out   []byte     // what sorted returns, valid until Close
}

// Close implements io.Closer for the value Finish returned: the merger
// and its buffers go back to mergePool.
func (m *bitmapMerge) Close() error {
	if cap(m.buf) > maxPooledMerge || cap(m.out) > maxPooledMerge || cap(m.nums) > maxPooledMerge/4 {
		return nil
	}
	m.buf, m.older, m.newer, m.nums, m.out = m.buf[:0], m.older[:0], m.newer[:0], m.nums[:0], m.out[:0]
	mergePool.Put(m)
	return nil
}

func (m *bitmapMerge) MergeNewer(v []byte) error {
	m.newer = append(m.newer, m.keep(v))
	return nil
}

func (m *bitmapMerge) MergeOlder(v []byte) error {
	m.older = append(m.older, m.keep(v))
	return nil
}

// keep copies v into the buffer and returns its span.
func (m *bitmapMerge) keep(v []byte) [2]int32 {
	start := len(m.buf)
	m.buf = append(m.buf, v...)
	// union reads sets in place (FromBuffer), and roaring may make a
	// zero-length []uint16 at a set's end: with the set last in the
	// buffer, that pointer lay past the allocation, which the race
	// detector's pointer checks (checkptr) stop the process for. A few
	// bytes of spare room keep it inside.
	m.buf = slices.Grow(m.buf, 8)
	return [2]int32{int32(start), int32(len(m.buf))}
}

// each calls fn with every operand, oldest first, until fn fails.
func (m *bitmapMerge) each(fn func(op []byte) error) error {
	for i := len(m.older) - 1; i >= 0; i-- {
		if err := fn(m.buf[m.older[i][0]:m.older[i][1]]); err != nil {
			return err
		}
	}
	for _, sp := range m.newer {
		if err := fn(m.buf[sp[0]:sp[1]]); err != nil {
			return err
		}
	}
	return nil
}

func (m *bitmapMerge) Finish(includesBase bool) ([]byte, io.Closer, error) {
	if len(m.older)+len(m.newer) == 1 {
		out, err := m.single(includesBase)
		return out, m, err
	}
	if out, ok, err := m.sorted(); ok || err != nil {
		return out, m, err
	}
	// The bitmaps built from here on own their bytes.
	defer m.Close()
	if out, ok, err := m.union(); ok || err != nil {
		return out, nil, err
	}
	set, clear := roaring.New(), roaring.New()
	err := m.each(func(op []byte) error {
		s, c, err := decodeOperand(op)
		if err != nil {
			return err
		}
		set.AndNot(c)
		set.Or(s)
		clear.Or(c)
		return nil
	})
	if err != nil {
		return nil, nil, err
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
func (m *bitmapMerge) single(includesBase bool) ([]byte, error) {
	sp := append(m.older, m.newer...)[0]
	op := m.buf[sp[0]:sp[1]]
	_, clear, err := splitOperand(op)
	if err != nil {
		return nil, err
	}
	if includesBase {
		op = op[:len(op)-len(clear)]
	}
	return op, nil
}

// sorted finishes a merge of operands that only set bits and hold
// array containers alone, the usual merge of a flush: most posting keys
// of a batch hold a few documents, and each batch in the memtable adds
// one operand to them. Their numbers are read straight from the portable
// bytes, joined (a concatenation when, as usual, each batch numbered its
// documents after the one before) and encoded again by
// encodeSortedOperand, with no bitmap built. ok is false when an operand
// clears bits or holds another container, or when the result needs one
// (encodeSortedOperand declines): union or the general merge then runs.
func (m *bitmapMerge) sorted() (out []byte, ok bool, err error) {
	nums := m.nums[:0]
	ascending := true
	err = m.eachSet(func(set []byte) error {
		n := len(nums)
		if nums, ok = appendArrayNums(nums, set, math.MaxInt); !ok {
			return errNotArrays
		}
		if n > 0 && len(nums) > n && nums[n] <= nums[n-1] {
			ascending = false
		}
		return nil
	})
	m.nums = nums
	if err == errNotArrays {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !ascending {
		slices.Sort(nums)
		nums = slices.Compact(nums)
	}
	m.out, ok = encodeSortedOperand(m.out[:0], nums)
	return m.out, ok, nil
}

// eachSet calls fn with the set part of every operand, oldest first;
// errNotArrays at the first operand that clears bits.
func (m *bitmapMerge) eachSet(fn func(set []byte) error) error {
	return m.each(func(op []byte) error {
		set, clear, err := splitOperand(op)
		if err != nil {
			return err
		}
		if len(clear) > 0 {
			return errNotArrays
		}
		return fn(set)
	})
}

// errNotArrays stops sorted's walk at an operand it cannot read, and
// union's at one that clears bits.
var errNotArrays = errors.New("not an operand of array containers")

// union finishes a merge of operands that only set bits, a run of puts:
// the result is the union of their sets, in any order. The sets are read
// in place from the merger's own copies (FromBuffer: copy on write,
// never changed) and joined in one pass (FastOr), not decoded, copied
// and ORed one by one. ok is false when an operand clears bits.
func (m *bitmapMerge) union() (out []byte, ok bool, err error) {
	bms := make([]*roaring.Bitmap, 0, len(m.older)+len(m.newer))
	err = m.eachSet(func(set []byte) error {
		bm := roaring.New()
		if _, err := bm.FromBuffer(set); err != nil {
			return fmt.Errorf("%w: posting bitmap: %v", ErrCorrupt, err)
		}
		bms = append(bms, bm)
		return nil
	})
	if err == errNotArrays {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
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
