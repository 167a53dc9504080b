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
	n, k := binary.Uvarint(op)
	if k <= 0 || uint64(len(op)-k) < n {
		return nil, nil, fmt.Errorf("%w: posting operand", ErrCorrupt)
	}
	set, clear = roaring.New(), roaring.New()
	if err := set.UnmarshalBinary(op[k : k+int(n)]); err != nil {
		return nil, nil, fmt.Errorf("%w: posting bitmap: %v", ErrCorrupt, err)
	}
	if rest := op[k+int(n):]; len(rest) > 0 {
		if err := clear.UnmarshalBinary(rest); err != nil {
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
