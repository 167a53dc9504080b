package index

import (
	"encoding/binary"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/store"
)

// postingSet collects the document numbers of every posting key a
// mutation or a load's run touches: hundreds of keys per document, a
// quarter of a billion additions in a million-document load, so each
// addition must cost a few cache hits, not a hash of the whole key in a
// map of millions.
//
// Path keys (family, path id, value) are found in two steps: the path id
// indexes a slice directly, then a family without a value (existence,
// long, no-gram: four postings in ten) is a slot of the path, and a
// family with values has a map of the path's values only, small and hot
// for the paths whose values repeat (buckets, enumerations). Other keys
// (kind, owner, all) go to one map. Key bytes live in arena chunks
// (never moved once written, so map keys may point into them), postings
// in fixed blocks (never copied as the set grows), and a posting's first
// numbers inline.
type postingSet struct {
	paths  []pathPostings   // by path id
	used   []uint32         // path ids with postings, for reset
	other  map[string]int32 // keys that are not path keys
	blocks [][]posting      // postings in the order their keys came
	n      int32            // postings held
	chunks [][]byte         // arena; chunks[len-1] is being filled
}

// pathPostings are one path's postings, by index in the set plus one
// (0: none).
type pathPostings struct {
	inUse  bool // listed in used
	bare   [len(bareFams)]int32
	values [len(valueFams)]map[string]int32 // keys are the values (the key past its path id)
}

// The families of path keys: those whose keys end at the path id, and
// those followed by a value.
var (
	bareFams  = [...]byte{famExists, famLong, famNoGram}
	valueFams = [...]byte{famEq, famRange, famBucket, famGram, famShort}
)

// famSlots maps a family to its place in pathPostings: -i-1 for
// bareFams[i], i+1 for valueFams[i], 0 for a family without a path.
var famSlots = func() (t [256]int8) {
	for i, f := range bareFams {
		t[f] = int8(-i - 1)
	}
	for i, f := range valueFams {
		t[f] = int8(i + 1)
	}
	return t
}()

const (
	pathKeyLen = 6       // prefix, family, path id
	maxSlotID  = 1 << 18 // larger path ids (a store of very many member names) use the map
	blockLen   = 1024
	arenaChunk = 64 << 10
	// A map that grew past keepMap keys in a large mutation is dropped by
	// reset rather than cleared: clearing costs its capacity, every
	// mutation after.
	keepMap = 4096
)

func newPostingSet() *postingSet { return &postingSet{other: map[string]int32{}} }

// reset empties the set, keeping its memory for the next mutation.
func (s *postingSet) reset() {
	for _, id := range s.used {
		pp := &s.paths[id]
		pp.inUse, pp.bare = false, [len(bareFams)]int32{}
		for i, m := range pp.values {
			if len(m) > keepMap {
				pp.values[i] = nil
			} else {
				clear(m)
			}
		}
	}
	s.used = s.used[:0]
	if len(s.other) > keepMap {
		s.other = map[string]int32{}
	} else {
		clear(s.other)
	}
	for i := int32(0); i < s.n; i += blockLen {
		b := s.blocks[i/blockLen]
		clear(b[:min(blockLen, s.n-i)]) // drop references to overflow slices
	}
	s.n = 0
	if len(s.chunks) > 0 {
		s.chunks = append(s.chunks[:0], s.chunks[0][:0])
	}
}

// len returns the number of keys in the set.
func (s *postingSet) len() int { return int(s.n) }

// at returns the i-th posting.
func (s *postingSet) at(i int32) *posting { return &s.blocks[i/blockLen][i%blockLen] }

// add records num under key; key is not retained.
func (s *postingSet) add(key []byte, num uint32) {
	s.slot(key).add(num)
}

// slot returns the posting of key, adding an empty one when it has none.
func (s *postingSet) slot(key []byte) *posting {
	pp, slot := s.pathOf(key, true)
	switch {
	case pp == nil:
		i, ok := s.other[string(key)] // no allocation on lookup
		if !ok {
			i = s.push(key)
			s.other[s.at(i).key] = i
		}
		return s.at(i)
	case slot < 0:
		ref := &pp.bare[-slot-1]
		if *ref == 0 {
			*ref = s.push(key) + 1
		}
		return s.at(*ref - 1)
	}
	m := pp.values[slot-1]
	if m == nil {
		m = map[string]int32{}
		pp.values[slot-1] = m
	}
	i, ok := m[string(key[pathKeyLen:])]
	if !ok {
		i = s.push(key)
		m[s.at(i).key[pathKeyLen:]] = i
	}
	return s.at(i)
}

// find returns the posting of key, nil when the set has none.
func (s *postingSet) find(key string) *posting {
	pp, slot := s.pathOf(unsafe.Slice(unsafe.StringData(key), len(key)), false)
	switch {
	case pp == nil && slot != 0: // a path key of a path the set does not hold
		return nil
	case pp == nil:
		if i, ok := s.other[key]; ok {
			return s.at(i)
		}
	case slot < 0:
		if i := pp.bare[-slot-1]; i > 0 {
			return s.at(i - 1)
		}
	default:
		if i, ok := pp.values[slot-1][key[pathKeyLen:]]; ok {
			return s.at(i)
		}
	}
	return nil
}

// pathOf returns the path's postings and the family's slot when key is
// a path key; nil and 0 when it is another key; nil and the slot when
// it is a path key of a path the set does not hold and add is false.
func (s *postingSet) pathOf(key []byte, add bool) (*pathPostings, int8) {
	if len(key) < pathKeyLen {
		return nil, 0
	}
	slot := famSlots[key[1]]
	if slot == 0 || (slot < 0 && len(key) != pathKeyLen) {
		return nil, 0
	}
	id := binary.BigEndian.Uint32(key[2:pathKeyLen])
	if id >= maxSlotID {
		return nil, 0
	}
	if int(id) >= len(s.paths) {
		if !add {
			return nil, slot
		}
		s.paths = append(s.paths, make([]pathPostings, int(id)+1-len(s.paths))...)
	}
	pp := &s.paths[id]
	if !pp.inUse {
		if !add {
			return nil, slot
		}
		pp.inUse = true
		s.used = append(s.used, id)
	}
	return pp, slot
}

// push appends an empty posting for key and returns its index.
func (s *postingSet) push(key []byte) int32 {
	i := s.n
	if int(i/blockLen) == len(s.blocks) {
		s.blocks = append(s.blocks, make([]posting, blockLen))
	}
	s.n++
	*s.at(i) = posting{key: s.intern(key)}
	return i
}

// posting is one key's document numbers, ascending. Numbers arrive in
// ascending order for puts, so appending (skipping a repeat of the last)
// is cheaper than a bitmap insert.
type posting struct {
	key    string
	inline [2]uint32
	n      int      // numbers held
	more   []uint32 // all numbers, once there are more than inline holds
}

// intern copies key into the arena and returns it as a string over it.
func (s *postingSet) intern(key []byte) string {
	if len(key) == 0 {
		return ""
	}
	n := len(s.chunks)
	if n == 0 || cap(s.chunks[n-1])-len(s.chunks[n-1]) < len(key) {
		s.chunks = append(s.chunks, make([]byte, 0, max(arenaChunk, len(key))))
		n++
	}
	c := s.chunks[n-1]
	start := len(c)
	c = append(c, key...)
	s.chunks[n-1] = c
	return unsafe.String(&c[start], len(key))
}

func (p *posting) add(num uint32) {
	switch {
	case p.n > 0 && p.last() == num:
		return
	case p.n < len(p.inline):
		p.inline[p.n] = num
	case p.n == len(p.inline):
		p.more = append(append(make([]uint32, 0, 8), p.inline[:]...), num)
	default:
		p.more = append(p.more, num)
	}
	p.n++
}

func (p *posting) last() uint32 {
	if p.n > len(p.inline) {
		return p.more[p.n-1]
	}
	return p.inline[p.n-1]
}

// nums returns the numbers, ascending when they were added in order.
func (p *posting) nums() []uint32 {
	if p.n > len(p.inline) {
		return p.more
	}
	return p.inline[:p.n]
}

func (p *posting) bitmap() *roaring.Bitmap {
	bm := roaring.New()
	bm.AddMany(p.nums())
	return bm
}

// flushAdds writes one "set" operand per key.
func (s *postingSet) flushAdds(w *store.IndexWriter) error {
	for i := int32(0); i < s.n; i++ {
		p := s.at(i)
		if err := w.AddSorted([]byte(p.key), p.nums()); err != nil {
			return err
		}
	}
	return nil
}

// flushRemoves writes one "clear" operand per key.
func (s *postingSet) flushRemoves(w *store.IndexWriter) error {
	for i := int32(0); i < s.n; i++ {
		p := s.at(i)
		if err := w.RemoveBits([]byte(p.key), p.bitmap()); err != nil {
			return err
		}
	}
	return nil
}

// each calls fn for every key and its numbers, in the order the keys
// were first added.
func (s *postingSet) each(fn func(key string, p *posting)) {
	for i := int32(0); i < s.n; i++ {
		p := s.at(i)
		fn(p.key, p)
	}
}
