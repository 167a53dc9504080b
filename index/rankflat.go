package index

import (
	"sync"
	"sync/atomic"

	"github.com/google/btree"
)

// The flattened rank order. A page walk of the B-tree costs about 50 ns
// a key (a 1% page at a million documents passes some 10,000 keys, most
// of a millisecond), and a page walk over a plain array of document
// numbers a few nanoseconds. So a committed order that is walked enough
// is flattened: its document numbers in rank order, and each number's
// position in that order, from which a walk after a cursor starts (one
// B-tree seek finds the first key after the cursor, its number gives
// the position). Both arrays hold no pointers, so the collector does not
// scan them: 8 bytes a document, 8 MB at a million.
//
// Flattening reads the whole tree, which costs about what walking it
// does, so it waits until walks of the same committed order have passed
// a share of its keys (rankFlatShare): the flattening then costs at most
// a few times what the walks already spent, and a store that commits
// between every pair of pages never pays for arrays it would not reuse.

// rankFlatShare is the share of a committed order's keys (one in
// rankFlatShare) that walks of it pass before it is flattened. A
// variable for tests.
var rankFlatShare = 4

// rankSnap is one committed rank order: its B-tree, never modified, and,
// once walked enough, its flattened form. Safe for concurrent use.
type rankSnap struct {
	t     *btree.BTreeG[string]
	steps atomic.Int64 // keys walks of t have passed
	once  sync.Once
	flat  atomic.Pointer[rankFlat]
	err   error // what flattening met, once done
}

// rankFlat is a committed rank order flattened: nums in rank order, and
// pos[num] the index of num in nums. Never modified once built.
type rankFlat struct {
	t    *btree.BTreeG[string]
	nums []uint32
	pos  []uint32
}

// walked counts steps keys a walk of the tree passed.
func (sn *rankSnap) walked(steps int) { sn.steps.Add(int64(steps)) }

// flattened returns the flattened order, flattening it first when walks
// have passed enough keys; nil while they have not (or flattening met a
// malformed key, which the tree walk then reports).
func (sn *rankSnap) flattened() *rankFlat {
	if f := sn.flat.Load(); f != nil {
		return f
	}
	if sn.steps.Load() < int64(sn.t.Len()/rankFlatShare) {
		return nil
	}
	f, _ := sn.flatten()
	return f
}

// flatten builds the flattened order, once.
func (sn *rankSnap) flatten() (*rankFlat, error) {
	sn.once.Do(func() {
		f := &rankFlat{t: sn.t, nums: make([]uint32, 0, sn.t.Len())}
		var top uint32
		sn.t.Ascend(func(key string) bool {
			num, ok := rankNum(key)
			if !ok {
				sn.err = errShortRankKey(key)
				return false
			}
			f.nums, top = append(f.nums, num), max(top, num)
			return true
		})
		if sn.err != nil {
			return
		}
		if len(f.nums) > 0 {
			f.pos = make([]uint32, int(top)+1)
		}
		for i, num := range f.nums {
			f.pos[num] = uint32(i)
		}
		sn.flat.Store(f)
	})
	return sn.flat.Load(), sn.err
}

// walk is WalkRank over the flattened order.
func (f *rankFlat) walk(after []byte, fn func(num uint32) (bool, error)) error {
	for _, num := range f.nums[f.start(after):] {
		if more, err := fn(num); !more || err != nil {
			return err
		}
	}
	return nil
}

// start returns the position in nums of the first key after (strictly)
// the key after, 0 when after is nil, len(nums) when no key follows it.
func (f *rankFlat) start(after []byte) int {
	if after == nil {
		return 0
	}
	start := len(f.nums)
	f.t.AscendGreaterOrEqual(string(after)+"\x00", func(key string) bool {
		num, _ := rankNum(key) // flattening read every key
		start = int(f.pos[num])
		return false
	})
	return start
}
