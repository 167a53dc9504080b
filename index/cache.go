package index

import (
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// bitmapCache keeps the posting lists every query reads — the universe's
// kind and owner bitmaps, every-document, existence per path, and the
// typed and several-values postings a range's complement reads — so a
// selective query does not read and decode them from Pebble each time.
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
		return
	}
	n := d.dels.len()
	for _, s := range d.adds {
		n += s.len()
	}
	if n == 0 {
		return
	}
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
