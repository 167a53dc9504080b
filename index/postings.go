package index

import (
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/store"
)

// postingSet collects the document numbers of every posting key a
// mutation touches. An indexed put touches hundreds of keys per document,
// most of them once per batch, so the set avoids an allocation per key:
// key bytes live in arena chunks (never moved once written, so the map's
// string keys may point into them), and a posting's first numbers are
// stored inline.
type postingSet struct {
	idx    map[string]int32
	list   []posting
	chunks [][]byte // arena; chunks[len-1] is being filled
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

const arenaChunk = 64 << 10

func newPostingSet() *postingSet { return &postingSet{idx: map[string]int32{}} }

// reset empties the set, keeping its memory for the next mutation.
func (s *postingSet) reset() {
	clear(s.idx)
	clear(s.list) // drop references to overflow slices
	s.list = s.list[:0]
	if len(s.chunks) > 0 {
		s.chunks = append(s.chunks[:0], s.chunks[0][:0])
	}
}

// add records num under key; key is not retained.
func (s *postingSet) add(key []byte, num uint32) {
	i, ok := s.idx[string(key)] // no allocation on lookup
	if !ok {
		k := s.intern(key)
		i = int32(len(s.list))
		s.list = append(s.list, posting{key: k})
		s.idx[k] = i
	}
	s.list[i].add(num)
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
	for i := range s.list {
		p := &s.list[i]
		if err := w.AddSorted([]byte(p.key), p.nums()); err != nil {
			return err
		}
	}
	return nil
}

// flushRemoves writes one "clear" operand per key.
func (s *postingSet) flushRemoves(w *store.IndexWriter) error {
	for i := range s.list {
		p := &s.list[i]
		if err := w.RemoveBits([]byte(p.key), p.bitmap()); err != nil {
			return err
		}
	}
	return nil
}

// each calls fn for every key and its numbers.
func (s *postingSet) each(fn func(key string, p *posting)) {
	for i := range s.list {
		fn(s.list[i].key, &s.list[i])
	}
}
