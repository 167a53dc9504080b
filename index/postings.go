package index

import (
	"hash/maphash"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/internal/hugepage"
	"github.com/aqlstore/aqlstore/store"
)

// postingSet collects the document numbers of every posting key a
// mutation or a load's run touches: hundreds of keys per document, a
// quarter of a billion additions in a million-document load, so each
// addition must cost a hash of a short key and a few cache hits.
//
// Nothing in a set holds a pointer the garbage collector must follow
// besides its few slices: a load's run holds tens of millions of
// numbers under millions of keys, and a heap of strings, maps and a
// slice per key made the collector scan all of them over and over. Key
// bytes live end to end in one arena, addressed by offset; keys are
// found through an open-addressing table of entry indexes, each beside
// its key's hash so that a probe past another key reads no entry; numbers live
// in blocks carved from fixed chunks of a slab, a key's blocks chained
// by slab offset and doubling in size, so a key that gains numbers never
// copies the ones it has. A key with one number keeps it in its entry.
//
// A log of (entry, number) pairs, grouped by a stable radix sort on the
// entry when the set is read, with slots holding a key's first bytes so
// that a short key is found without its entry, was measured against
// this on a load of 200,000 manifests: 3% less CPU, within the noise
// of the measure (the slot and long keys' misses stay, and the log's
// growth and sort cost about what the blocks do), for half as much
// memory again.
//
// A path's existence key and its typed and multi keys (a type byte) are
// found by path id (byPath, addAt), not hashed: nearly half of a
// manifest's postings go to these few keys per path. On 1,000,000
// manifests (aqlstore put, two interleaved pairs) that took 3 to 6 of
// about 96 CPU-s off. Keeping the equality and range keys of paths
// whose values are mostly distinct in a second set per shard, so that
// the keys that take many numbers sit in a table that stays in the
// cache, was measured the same way: no gain within the noise.
//
// The table, the entries, the arena and the slab are advised to be
// backed by transparent huge pages as they are allocated
// (hugepage.Advise): read at random, with 4 KiB pages nearly every
// addition also missed the TLB. On 1,000,000 manifests (aqlstore put,
// alternated pairs) that took 1.6 to 1.8 of about 83 user CPU-s off.
type postingSet struct {
	seed   maphash.Seed
	table  []uint64 // hash<<32 | entry index + 1, 0 for an empty slot; a power of two long
	ents   []pent   // in the order the keys came
	keys   []byte   // the arena: every key, end to end
	chunks [][]uint32
	fill   uint32 // words used of chunks[len-1]
	sink   uint32 // what addAll's warming reads sum to, kept so they are not dropped
	// byPath finds the keys of a path's existence, typed and multi
	// postings by path id, without a hash (pathSlot): entry index + 1, 0
	// when not looked up yet. Those few keys per path take nearly half
	// of a manifest's postings.
	byPath []uint32
}

// pent is one key's entry.
type pent struct {
	koff, klen uint32 // the key is keys[koff:koff+klen]
	n          uint32 // numbers held
	last       uint32 // the last number added; the only one while n is 1
	head, tail uint32 // slab offsets of the first and last block, 0 while n < 2
	used       uint32 // numbers in the tail block
	blocks     uint32 // blocks in the chain
}

const (
	// A slab chunk is 4 MiB, so that it holds a whole huge page wherever
	// the allocator puts it (hugepage.Advise): its blocks are written at
	// random too.
	chunkShift = 20
	chunkWords = 1 << chunkShift
	firstBlock = 4    // numbers in a key's first block
	maxBlock   = 1024 // and at most in any block, so that a block fits a chunk
	minTable   = 1 << 10
	// A table grown past keepTable slots in a large mutation is dropped by
	// reset rather than cleared: clearing costs its size, every mutation
	// after.
	keepTable = 1 << 16
)

func newPostingSet() *postingSet { return &postingSet{seed: maphash.MakeSeed()} }

// blockCap is the capacity of the k-th block (from 0) of a chain.
func blockCap(k uint32) uint32 { return min(uint32(firstBlock)<<min(k, 16), maxBlock) }

// reset empties the set, keeping its memory for the next mutation.
func (s *postingSet) reset() { s.empty(len(s.table) > keepTable) }

// resetRun empties the set and keeps all its memory: a load's next run
// grows it back to the size it has.
func (s *postingSet) resetRun() { s.empty(false) }

func (s *postingSet) empty(drop bool) {
	if drop {
		s.table, s.ents, s.keys = nil, nil, nil
		if len(s.chunks) > 0 {
			s.chunks = s.chunks[:1:1]
		}
	} else {
		clear(s.table)
		s.ents, s.keys = s.ents[:0], s.keys[:0]
		if len(s.chunks) > 0 {
			s.chunks = s.chunks[:1]
		}
	}
	s.fill = 1 // offset 0 means no block
	if drop || len(s.byPath) > keepTable {
		s.byPath = nil
	} else {
		clear(s.byPath)
	}
}

// len returns the number of keys in the set.
func (s *postingSet) len() int { return len(s.ents) }

// add records num under key; key is not retained. Numbers must come in
// ascending order per key; a repeat of the last is dropped.
func (s *postingSet) add(key []byte, num uint32) {
	s.addHashed(key, uint32(maphash.Bytes(s.seed, key)), num)
}

// addHashed is add of key, whose hash is h; it returns key's entry.
func (s *postingSet) addHashed(key []byte, h, num uint32) int {
	slot, i := s.lookup(key, h)
	if i < 0 {
		i = s.insert(key, h, slot)
		e := &s.ents[i]
		e.n, e.last = 1, num
		return i
	}
	if e := &s.ents[i]; e.last != num {
		s.append(e, num)
	}
	return i
}

// keyBatch is one document's keys for a set, end to end.
type keyBatch struct {
	keys   []byte
	ends   []uint32 // key i is keys[ends[i-1]:ends[i]]
	hashes []uint32
	key    []byte // one key added apart (addAt)
}

func (b *keyBatch) reset() { b.keys, b.ends = b.keys[:0], b.ends[:0] }

// addAll is add of every key of b with num. A set of a load's run holds
// millions of keys, and an add costs the cache misses of its table slot,
// its entry and its key, one after another; addAll first reads them for
// every key of the batch in loops whose reads do not wait on each other,
// so that the misses overlap, then adds. (The number block is written,
// not read: its miss does not stall.)
func (s *postingSet) addAll(b *keyBatch, num uint32) {
	if len(s.table) == 0 {
		s.table = make([]uint64, minTable)
	}
	for 2*(len(s.ents)+len(b.ends)) > len(s.table) {
		s.grow()
	}
	b.hashes = b.hashes[:0]
	start := uint32(0)
	for _, end := range b.ends {
		b.hashes = append(b.hashes, uint32(maphash.Bytes(s.seed, b.keys[start:end])))
		start = end
	}
	mask := uint32(len(s.table) - 1)
	sink := s.sink
	for _, h := range b.hashes {
		sink += uint32(s.table[h&mask])
	}
	for _, h := range b.hashes {
		if v := s.table[h&mask]; v != 0 && uint32(v>>32) == h {
			sink += s.ents[uint32(v)-1].used
		}
	}
	for _, h := range b.hashes {
		if v := s.table[h&mask]; v != 0 && uint32(v>>32) == h {
			if e := &s.ents[uint32(v)-1]; e.klen > 0 { // an empty key may sit at the arena's end
				sink += uint32(s.keys[e.koff])
			}
		}
	}
	s.sink = sink
	start = 0
	for i, end := range b.ends {
		s.addHashed(b.keys[start:end], b.hashes[i], num)
		start = end
	}
}

// pathSlots is how many byPath slots a path id has: its existence key
// and the typed and multi keys of numbers and instants. Path ids from
// maxSlotted on have none, so byPath stays small enough to clear at
// every mutation.
const (
	pathSlots  = 5
	maxSlotted = keepTable / pathSlots
)

// pathSlot returns the byPath slot of a key of family fam with value
// under path id, and whether the key has one.
func pathSlot(id uint32, fam byte, value []byte) (int, bool) {
	var k int
	switch {
	case id >= maxSlotted:
		return 0, false
	case fam == famExists && len(value) == 0:
		k = 0
	case (fam == famTyped || fam == famMulti) && len(value) == 1 && (value[0] == typeNumber || value[0] == typeInst):
		k = 1
		if fam == famMulti {
			k = 3
		}
		if value[0] == typeInst {
			k++
		}
	default:
		return 0, false
	}
	return int(id)*pathSlots + k, true
}

// addAt is add of key, whose byPath slot is slot.
func (s *postingSet) addAt(slot int, key []byte, num uint32) {
	if slot < len(s.byPath) {
		if i := s.byPath[slot]; i != 0 {
			if e := &s.ents[i-1]; e.last != num {
				s.append(e, num)
			}
			return
		}
	} else {
		s.byPath = append(s.byPath, make([]uint32, (slot/pathSlots+1)*pathSlots-len(s.byPath))...)
	}
	i := s.addHashed(key, uint32(maphash.Bytes(s.seed, key)), num)
	s.byPath[slot] = uint32(i) + 1
}

// append adds num to e, a key with at least one number.
func (s *postingSet) append(e *pent, num uint32) {
	switch {
	case e.n == 1:
		b := s.block(firstBlock)
		c := s.chunks[b>>chunkShift]
		o := b & (chunkWords - 1)
		c[o+1], c[o+2] = e.last, num
		e.head, e.tail, e.used, e.blocks = b, b, 2, 1
	case e.used == blockCap(e.blocks-1):
		b := s.block(blockCap(e.blocks))
		s.chunks[e.tail>>chunkShift][e.tail&(chunkWords-1)] = b
		s.chunks[b>>chunkShift][b&(chunkWords-1)+1] = num
		e.tail, e.used = b, 1
		e.blocks++
	default:
		s.chunks[e.tail>>chunkShift][e.tail&(chunkWords-1)+1+e.used] = num
		e.used++
	}
	e.n++
	e.last = num
}

// block carves a block of capacity c (and its link word) from the slab
// and returns its offset.
func (s *postingSet) block(c uint32) uint32 {
	need := c + 1
	if len(s.chunks) == 0 || s.fill+need > chunkWords {
		if n := len(s.chunks); n < cap(s.chunks) && s.chunks[:n+1][n] != nil {
			s.chunks = s.chunks[:n+1] // a chunk kept by reset
		} else {
			c := make([]uint32, chunkWords)
			hugepage.Advise(c)
			s.chunks = append(s.chunks, c)
		}
		s.fill = 0
		if len(s.chunks) == 1 {
			s.fill = 1 // offset 0 means no block
		}
	}
	off := uint32(len(s.chunks)-1)<<chunkShift | s.fill
	s.chunks[len(s.chunks)-1][s.fill] = 0
	s.fill += need
	return off
}

// lookup returns the table slot of key, whose hash is h, and its entry
// index; -1 and the empty slot it would take when the set has no key.
func (s *postingSet) lookup(key []byte, h uint32) (uint32, int) {
	if len(s.table) == 0 {
		s.table = make([]uint64, minTable)
	}
	mask := uint32(len(s.table) - 1)
	for slot := h & mask; ; slot = (slot + 1) & mask {
		v := s.table[slot]
		if v == 0 {
			return slot, -1
		}
		if uint32(v>>32) != h {
			continue
		}
		if e := &s.ents[uint32(v)-1]; string(s.keys[e.koff:e.koff+e.klen]) == string(key) {
			return slot, int(uint32(v) - 1)
		}
	}
}

// insert adds an entry for key, whose hash is h, at the empty table slot
// lookup returned, and returns its index.
func (s *postingSet) insert(key []byte, h, slot uint32) int {
	i := len(s.ents)
	s.ents = grown(s.ents, 1)
	s.keys = grown(s.keys, len(key))
	s.ents = append(s.ents, pent{koff: uint32(len(s.keys)), klen: uint32(len(key))})
	s.keys = append(s.keys, key...)
	s.table[slot] = uint64(h)<<32 | uint64(i+1)
	if 2*len(s.ents) > len(s.table) { // at most half full: probes stay short
		s.grow()
	}
	return i
}

// grow doubles the table.
func (s *postingSet) grow() {
	old := s.table
	s.table = make([]uint64, 2*len(old))
	hugepage.Advise(s.table)
	mask := uint32(len(s.table) - 1)
	for _, v := range old {
		if v == 0 {
			continue
		}
		slot := uint32(v>>32) & mask
		for s.table[slot] != 0 {
			slot = (slot + 1) & mask
		}
		s.table[slot] = v
	}
}

// key returns entry i's key, valid until the set is reset.
func (s *postingSet) key(i int) []byte {
	e := &s.ents[i]
	return s.keys[e.koff : e.koff+e.klen : e.koff+e.klen]
}

// appendNums appends entry i's numbers to dst, ascending when they were
// added in order.
func (s *postingSet) appendNums(dst []uint32, i int) []uint32 {
	e := &s.ents[i]
	if e.n == 1 {
		return append(dst, e.last)
	}
	for b, k := e.head, uint32(0); b != 0; k++ {
		c := s.chunks[b>>chunkShift]
		o := b & (chunkWords - 1)
		n := blockCap(k)
		if b == e.tail {
			n = e.used
		}
		dst = append(dst, c[o+1:o+1+n]...)
		b = c[o]
	}
	return dst
}

// posting is one key of a set, as find and each return it.
type posting struct {
	s *postingSet
	i int
}

// nums returns the numbers, ascending when they were added in order.
func (p *posting) nums() []uint32 { return p.s.appendNums(nil, p.i) }

func (p *posting) bitmap() *roaring.Bitmap {
	bm := roaring.New()
	bm.AddMany(p.nums())
	return bm
}

// find returns the posting of key, nil when the set has none.
func (s *postingSet) find(key string) *posting {
	if len(s.ents) == 0 {
		return nil
	}
	k := unsafe.Slice(unsafe.StringData(key), len(key))
	if _, i := s.lookup(k, uint32(maphash.Bytes(s.seed, k))); i >= 0 {
		return &posting{s, i}
	}
	return nil
}

// flushAdds writes one "set" operand per key.
func (s *postingSet) flushAdds(w *store.IndexWriter) error {
	var nums []uint32
	for i := range s.ents {
		nums = s.appendNums(nums[:0], i)
		if err := w.AddSorted(s.key(i), nums); err != nil {
			return err
		}
	}
	return nil
}

// flushRemoves writes one "clear" operand per key.
func (s *postingSet) flushRemoves(w *store.IndexWriter) error {
	for i := range s.ents {
		p := posting{s, i}
		if err := w.RemoveBits(s.key(i), p.bitmap()); err != nil {
			return err
		}
	}
	return nil
}

// each calls fn for every key and its numbers, in the order the keys
// were first added. The key string is valid until the set is reset.
func (s *postingSet) each(fn func(key string, p *posting)) {
	for i := range s.ents {
		k := s.key(i)
		fn(unsafe.String(unsafe.SliceData(k), len(k)), &posting{s, i})
	}
}

// grown returns s with room for n more elements: the same slice when it
// has it, else a copy in a new array twice as large, advised to be
// backed by huge pages before it is written (a set's entries and key
// arena are read at random, one miss per addition).
func grown[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	t := make([]T, len(s), max(2*cap(s), len(s)+n, 64))
	hugepage.Advise(t)
	copy(t, s)
	return t
}
