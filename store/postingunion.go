package store

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// PostingUnion is the union of posting values (as Scan and Visit read
// them) added one by one. Most postings a lookup ORs are small (a range's
// values and fine buckets hold a few documents each), and decoding each
// into a bitmap of its own cost about ten allocations to OR a handful of
// numbers: a posting whose containers are all arrays is read in place
// instead, its numbers gathered and sorted once, and only the others are
// decoded. Add keeps no reference to the values it is given. The zero
// PostingUnion is empty; it is not safe for concurrent use.
type PostingUnion struct {
	nums []uint32        // the array postings' numbers, in the order added
	bm   *roaring.Bitmap // the union of the other postings, or nil
}

// maxUnionNums bounds the numbers a PostingUnion gathers before it sorts
// them into its bitmap.
const maxUnionNums = 1 << 16

// maxGatheredPosting is the most numbers an array posting may hold to be
// gathered; a larger one is decoded and ORed, container by container,
// which merges its sorted arrays in linear time where gathering sorts
// every number again. A range over most of a million documents ORs
// coarse buckets of tens of thousands of numbers each, all in array
// containers (they are spread over the whole store): gathered, each
// query sorted about a million numbers.
const maxGatheredPosting = 256

// Add adds the documents of the posting value v to the union.
func (u *PostingUnion) Add(v []byte) error {
	set, _, err := splitOperand(v)
	if err != nil {
		return err
	}
	if nums, ok := appendArrayNums(u.nums, set, maxGatheredPosting); ok {
		if u.nums = nums; len(u.nums) >= maxUnionNums {
			u.flush()
		}
		return nil
	}
	bm := roaring.New()
	if err := bm.UnmarshalBinary(set); err != nil {
		return fmt.Errorf("%w: posting bitmap: %v", ErrCorrupt, err)
	}
	if u.bm == nil {
		u.bm = bm
	} else {
		u.bm.Or(bm)
	}
	return nil
}

// Bitmap returns the union, which belongs to the caller, and empties u.
func (u *PostingUnion) Bitmap() *roaring.Bitmap {
	u.flush()
	bm := u.bm
	if bm == nil {
		bm = roaring.New()
	}
	u.bm = nil
	return bm
}

// flush moves the gathered numbers into the bitmap: sorted, they are
// appended container by container (roaring's AddMany on ascending numbers).
func (u *PostingUnion) flush() {
	if len(u.nums) == 0 {
		return
	}
	slices.Sort(u.nums)
	bm := roaring.New()
	bm.AddMany(u.nums)
	if u.bm == nil {
		u.bm = bm
	} else {
		u.bm.Or(bm)
	}
	u.nums = u.nums[:0]
}

// appendArrayNums appends the numbers of the portable roaring bitmap b,
// already checked sound (checkPortable), when all its containers are
// array containers and it holds at most most numbers; ok is false, and
// dst unchanged, when one is a run or bitmap container or it holds more.
func appendArrayNums(dst []uint32, b []byte, most int) (_ []uint32, ok bool) {
	const cookieNoRun, maxArray = 12346, 4096
	if binary.LittleEndian.Uint32(b) != cookieNoRun {
		return dst, false // run containers (cookie 12347) may be among them
	}
	n := int(binary.LittleEndian.Uint32(b[4:]))
	header, data := b[8:8+4*n], b[8+8*n:] // keys and cardinalities, then (past the offsets) the containers
	total := 0
	for i := 0; i < n; i++ {
		card := int(binary.LittleEndian.Uint16(header[4*i+2:])) + 1
		if total += card; card > maxArray || total > most {
			return dst, false
		}
	}
	for i := 0; i < n; i++ {
		hi := uint32(binary.LittleEndian.Uint16(header[4*i:])) << 16
		card := int(binary.LittleEndian.Uint16(header[4*i+2:])) + 1
		for j := 0; j < card; j++ {
			dst = append(dst, hi|uint32(binary.LittleEndian.Uint16(data[2*j:])))
		}
		data = data[2*card:]
	}
	return dst, true
}
