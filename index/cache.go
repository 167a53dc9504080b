package index

import (
	"bytes"
	"encoding/binary"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// bitmapCache keeps the posting lists every query reads — the universe's
// kind and owner bitmaps, every-document, existence per path, and the
// typed and several-values postings a range's complement reads — so a
// selective query does not read and decode them from Pebble each time;
// and the answers of range lookups (rangeResults).
//
// A committed mutation updates it by its delta (Index.Done, commit): an
// entry whose key the mutation touched becomes a copy with the numbers
// added and removed, as the merge operands do on disk; every other entry
// survives. A derived entry (Public: owners ∩ kinds) is updated from its
// updated parts, or dropped when a part is no longer cached. A commit
// whose writes the delta does not describe (a sweep deleting keys)
// empties the cache.
//
// A lookup that read its bitmap before a commit must not store it after
// the commit updated the cache, so entries are stored only if no commit
// happened since the read began (gen).
type bitmapCache struct {
	mu      sync.Mutex
	gen     uint64
	m       map[string]*roaring.Bitmap
	derived map[string][]string // derived entry → its parts: the owner key, then the kind keys
	ranges  rangeResults        // range lookups' answers, updated by the same deltas
}

// bitmapCacheMax bounds the entries; the cache is emptied when it fills
// (owners are unbounded in number, paths nearly so).
const bitmapCacheMax = 4096

// cacheable reports whether the posting family at key is cached.
func cacheable(key []byte) bool {
	if len(key) < 2 {
		return false
	}
	switch key[1] {
	case famKind, famOwner, famAll, famExists, famTyped, famMulti:
		return true
	}
	return false
}

// get returns the cached bitmap at key, or the generation a later put
// must present. Cached bitmaps are shared and never modified: a commit
// replaces an entry rather than changing a bitmap a query may be reading.
func (c *bitmapCache) get(key []byte) (*roaring.Bitmap, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bm, ok := c.m[string(key)]; ok {
		return bm, c.gen
	}
	return nil, c.gen
}

// put stores bm at key if no commit happened since gen; the caller gives
// it up for reading only.
func (c *bitmapCache) put(key []byte, bm *roaring.Bitmap, gen uint64) {
	c.putDerived(key, bm, gen, nil)
}

// putDerived is put for an entry computed from the posting lists at
// parts (the owner key, then the kind keys), so that a commit can update
// it from theirs.
func (c *bitmapCache) putDerived(key []byte, bm *roaring.Bitmap, gen uint64, parts []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.m == nil || len(c.m) >= bitmapCacheMax {
		c.m, c.derived = map[string]*roaring.Bitmap{}, nil
	}
	c.m[string(key)] = bm
	if parts != nil {
		if c.derived == nil {
			c.derived = map[string][]string{}
		}
		c.derived[string(key)] = parts
	}
}

// delta is what one committed mutation did to the posting lists: the
// numbers it added under each key, then those it removed.
type delta struct {
	adds []*postingSet // a key may be in more than one
	dels *postingSet
}

// touched reports whether the mutation wrote key.
func (d delta) touched(key string) bool {
	for _, s := range d.adds {
		if s.find(key) != nil {
			return true
		}
	}
	return d.dels.find(key) != nil
}

// apply returns bm with the mutation's numbers at key added, then
// removed, as the merge operands apply them (adds before removes).
func (d delta) apply(key string, bm *roaring.Bitmap) *roaring.Bitmap {
	out := bm.Clone()
	for _, s := range d.adds {
		if p := s.find(key); p != nil {
			out.AddMany(p.nums())
		}
	}
	if p := d.dels.find(key); p != nil {
		for _, n := range p.nums() {
			out.Remove(n)
		}
	}
	return out
}

// numbers calls fn with every number the mutation added or removed at
// key.
func (d delta) numbers(key string, fn func(uint32)) {
	for _, s := range append(d.adds[:len(d.adds):len(d.adds)], d.dels) {
		if p := s.find(key); p != nil {
			for _, n := range p.nums() {
				fn(n)
			}
		}
	}
}

// commit brings the cache up to a committed mutation: d when it describes
// every write the mutation made, else (exact false) the cache is emptied.
func (c *bitmapCache) commit(d delta, exact bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if !exact {
		c.m, c.derived = nil, nil
		c.ranges.clear()
		return
	}
	n := d.dels.len()
	for _, s := range d.adds {
		n += s.len()
	}
	if n == 0 {
		return
	}
	c.ranges.commit(d)
	for key, bm := range c.m {
		if _, ok := c.derived[key]; !ok && d.touched(key) {
			c.m[key] = d.apply(key, bm)
		}
	}
	for key, parts := range c.derived {
		c.commitDerived(d, key, parts)
	}
}

// commitDerived updates the derived entry at key (owners ∩ kinds, from
// parts) after its parts were updated: each number the mutation wrote
// under a part is in the entry iff it is now in the owner part and in
// one of the kind parts. A part no longer cached drops the entry.
func (c *bitmapCache) commitDerived(d delta, key string, parts []string) {
	var touched []uint32
	for _, p := range parts {
		d.numbers(p, func(n uint32) { touched = append(touched, n) })
	}
	if len(touched) == 0 {
		return
	}
	bms := make([]*roaring.Bitmap, len(parts))
	for i, p := range parts {
		if bms[i] = c.m[p]; bms[i] == nil {
			delete(c.m, key)
			delete(c.derived, key)
			return
		}
	}
	out := c.m[key].Clone()
	for _, n := range touched {
		if inDerived(bms, n) {
			out.Add(n)
		} else {
			out.Remove(n)
		}
	}
	c.m[key] = out
}

// inDerived reports whether n is in bms[0] (the owner) and in one of the
// rest (the kinds).
func inDerived(bms []*roaring.Bitmap, n uint32) bool {
	if !bms[0].Contains(n) {
		return false
	}
	for _, bm := range bms[1:] {
		if bm.Contains(n) {
			return true
		}
	}
	return false
}

// rangeResults keeps the answers of range lookups (rangeScan): the
// documents with a value of one type in [lo, end) at any of a list of
// paths, by those four, so that a leaf asked again reads no bucket and
// builds no complement; equal leaves of different queries share one
// entry. Only answers exact among every document are kept (a complement
// exact among a reader's documents only is not), so an entry answers
// every reader, whatever its universe.
//
// A commit updates each entry by its delta rather than dropping it: a
// number added under a range posting of the entry's type at one of its
// paths, with a value in [lo, end), joins it; a number removed under the
// every-document key leaves it. The store removes postings only when it
// deletes a document, whole, and never gives its number to another, so a
// removed number is one no posting holds any more, and is never added
// after. A commit only notes the numbers (pending); the next read of the
// entry applies them to a copy, so a write costs the numbers it wrote,
// not a copy of every answer as large as the store that it touched.
// The answers are bounded in number and in bytes; an entry is evicted
// to make room.
type rangeResults struct {
	m     map[string]*rangeResult
	bytes uint64 // the entries' sizes
}

// rangeResult is one range lookup's answer and the leaf it answers.
type rangeResult struct {
	ids     []uint32
	typ     byte
	lo, end []byte
	r       Range
	size    uint64 // r.Docs's size in memory
	// What commits did to r.Docs since it was last read: numbers to add,
	// then numbers to remove.
	adds, gone []uint32
}

// A range answer may be as large as the store (a range holding every
// document is a bitmap of a million bits at a million documents, a few
// KiB run-compressed, up to 128 KiB not), so the answers are bounded in
// bytes as well as in number; an entry's pending numbers are applied
// once they pass rangePendingMax, so that they stay within a few times
// the size of a large answer.
const (
	rangeResultsMax   = 256
	rangeResultsBytes = 64 << 20
	rangePendingMax   = 1 << 16
)

// rangeKey is the cache key of a range leaf: its type, its paths, and
// its bounds, each with its length so that no two leaves share a key.
func rangeKey(ids []uint32, typ byte, lo, end []byte) string {
	key := make([]byte, 0, 1+binary.MaxVarintLen32+4*len(ids)+2*binary.MaxVarintLen32+len(lo)+len(end))
	key = append(key, typ)
	key = binary.AppendUvarint(key, uint64(len(ids)))
	for _, id := range ids {
		key = binary.BigEndian.AppendUint32(key, id)
	}
	key = binary.AppendUvarint(key, uint64(len(lo)))
	key = append(key, lo...)
	return string(append(key, end...))
}

// getRange returns the cached answer at key, or the generation a later
// putRange must present. The answer's bitmap is shared and never
// modified, as get's.
func (c *bitmapCache) getRange(key string) (Range, bool, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.ranges.m[key]; ok {
		c.ranges.settle(e)
		return e.r, true, c.gen
	}
	return Range{}, false, c.gen
}

// putRange stores e at key if no commit happened since gen; the caller
// gives up e.r.Docs for reading only.
func (c *bitmapCache) putRange(key string, e *rangeResult, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen == c.gen {
		c.ranges.put(key, e)
	}
}

// put stores e at key, evicting entries until it fits; an answer larger
// than the whole bound is not kept.
func (rr *rangeResults) put(key string, e *rangeResult) {
	e.size = e.r.Docs.GetSizeInBytes()
	if e.size > rangeResultsBytes {
		return
	}
	if rr.m == nil {
		rr.m = map[string]*rangeResult{}
	}
	rr.drop(key)
	for k := range rr.m { // Go's map order: an entry picked at random
		if len(rr.m) < rangeResultsMax && rr.bytes+e.size <= rangeResultsBytes {
			break
		}
		rr.drop(k)
	}
	rr.m[key], rr.bytes = e, rr.bytes+e.size
}

// drop removes the entry at key, if there is one.
func (rr *rangeResults) drop(key string) {
	if e, ok := rr.m[key]; ok {
		rr.bytes -= e.size
		delete(rr.m, key)
	}
}

// clear drops every entry.
func (rr *rangeResults) clear() { rr.m, rr.bytes = nil, 0 }

// settle applies e's pending numbers to a copy of its answer: a query
// may hold the one it had.
func (rr *rangeResults) settle(e *rangeResult) {
	if len(e.adds) == 0 && len(e.gone) == 0 {
		return
	}
	docs := e.r.Docs.Clone()
	docs.AddMany(e.adds)
	for _, n := range e.gone {
		docs.Remove(n)
	}
	e.adds, e.gone = nil, nil
	size := docs.GetSizeInBytes()
	e.r.Docs, rr.bytes, e.size = docs, rr.bytes-e.size+size, size
}

// pathType is a path id and a range type: the range postings an entry
// reads.
type pathType struct {
	id  uint32
	typ byte
}

// rangePosting is a range posting a mutation added to: its value (the
// key's sortable suffix) and where its numbers are.
type rangePosting struct {
	value []byte
	s     *postingSet
	i     int
}

// commit notes a committed mutation's delta d in every entry it changes.
func (rr *rangeResults) commit(d delta) {
	if len(rr.m) == 0 {
		return
	}
	var gone []uint32
	if p := d.dels.find(string(appendFamily(nil, famAll))); p != nil {
		gone = p.nums()
	}
	added := rangeAdds(d)
	for _, e := range rr.m {
		for _, id := range e.ids {
			for _, p := range added[pathType{id, e.typ}] {
				if bytes.Compare(p.value, e.lo) >= 0 && bytes.Compare(p.value, e.end) < 0 {
					e.adds = p.s.appendNums(e.adds, p.i)
				}
			}
		}
		e.gone = append(e.gone, gone...)
		if len(e.adds)+len(e.gone) > rangePendingMax {
			rr.settle(e)
		}
	}
}

// rangeAdds returns the range postings d added to, by path and type.
func rangeAdds(d delta) map[pathType][]rangePosting {
	const head = 2 + 4 + 1 // X r, the path id, the type
	prefix := appendFamily(nil, famRange)
	var out map[pathType][]rangePosting
	for _, s := range d.adds {
		for i := range s.len() {
			k := s.key(i)
			if len(k) < head || k[0] != prefix[0] || k[1] != prefix[1] {
				continue
			}
			if out == nil {
				out = map[pathType][]rangePosting{}
			}
			pt := pathType{binary.BigEndian.Uint32(k[2:6]), k[6]}
			out[pt] = append(out[pt], rangePosting{k[head:], s, i})
		}
	}
	return out
}
