package index

import (
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// bitmapCache keeps the posting lists every query reads — the universe's
// kind and owner bitmaps, every-document, and existence per path — so a
// selective query does not read and decode them from Pebble each time.
// Any committed mutation empties it (Index.Done). A lookup that read its
// bitmap before a commit must not store it after the commit emptied the
// cache, so entries are stored only if no commit happened since the read
// began (gen).
type bitmapCache struct {
	mu  sync.Mutex
	gen uint64
	m   map[string]*roaring.Bitmap
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
	case famKind, famOwner, famAll, famExists:
		return true
	}
	return false
}

// get returns the cached bitmap at key, or the generation a later put
// must present. Cached bitmaps are shared and never modified: a commit
// replaces the map rather than changing a bitmap a query may be reading.
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
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.m == nil || len(c.m) >= bitmapCacheMax {
		c.m = map[string]*roaring.Bitmap{}
	}
	c.m[string(key)] = bm
}

// invalidate empties the cache after a committed mutation.
func (c *bitmapCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.m = nil
}
