package store

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
)

// hotDocs keeps the records and bodies of the documents that small
// fetches read, for as long as no write comes. Every selective query
// that lists its rejections reads the first documents of the store
// that it did not accept, so a stream of point queries reads the same
// ten documents again and again: from the block cache, through an
// iterator positioned in every level of the LSM, about a sixth of a
// point query's CPU. A fetch of at most hotFetchMax numbers, all of
// them here and read at the current write count (kv.writeEpoch), takes
// them from here instead; who may see them is still checked against
// the store as it is. Any commit or ingest changes the write count, and
// with it every entry is stale: the cache never answers for a store
// that changed since it read.
type hotDocs struct {
	mu    sync.Mutex
	epoch uint64 // the write count the entries were read at
	docs  map[uint32]*hotDoc
	bytes int // the entries' bodies and signals
	// hits counts the fetches the cache served: tests read it to know
	// that a comparison went through the cache.
	hits atomic.Int64
}

// hotDoc is one document's record and body, its own copies.
type hotDoc struct {
	rec  record
	body []byte
}

// hotFetchMax is the largest fetch the cache serves or fills: the
// rejections a response lists (10 by default), a handful of candidates.
// A larger fetch reads its documents in one pass anyway. A variable so
// that tests can turn the cache off (0) and compare.
var hotFetchMax uint64 = 16

// hotMax bounds the entries (about 3 KB each for a manifest) and
// hotMaxBytes their bytes; past either an arbitrary one leaves. A
// document larger than hotDocMaxBytes is never kept.
const (
	hotMax         = 1024
	hotMaxBytes    = 8 << 20
	hotDocMaxBytes = 64 << 10
)

// lookup returns the entries of every number of nums, in ascending
// order, when all of them were read at write count epoch.
func (h *hotDocs) lookup(nums *roaring.Bitmap, epoch uint64, out []*hotDoc) ([]*hotDoc, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.epoch != epoch || len(h.docs) == 0 {
		return out, false
	}
	it := nums.Iterator()
	for it.HasNext() {
		d, ok := h.docs[it.Next()]
		if !ok {
			return out, false
		}
		out = append(out, d)
	}
	return out, true
}

// note keeps document num's record and body, read at write count epoch,
// when that is still the write count: what was read then is what the
// store holds now.
func (h *hotDocs) note(k *kv, epoch uint64, num uint32, rec *record, body []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !k.unchangedSince(epoch) {
		return // a write began since the read: it may have changed what was read
	}
	size := len(body) + len(rec.signals)
	if size > hotDocMaxBytes {
		return
	}
	if h.epoch != epoch || h.docs == nil {
		h.epoch, h.docs, h.bytes = epoch, make(map[uint32]*hotDoc), 0
	}
	if _, ok := h.docs[num]; ok {
		return
	}
	for n, d := range h.docs {
		if len(h.docs) < hotMax && h.bytes+size <= hotMaxBytes {
			break
		}
		delete(h.docs, n)
		h.bytes -= len(d.body) + len(d.rec.signals)
	}
	d := &hotDoc{rec: *rec, body: bytes.Clone(body)}
	d.rec.signals = bytes.Clone(rec.signals)
	d.rec.inline = nil // the body is kept whole; the record needs none of its bytes
	h.docs[num] = d
	h.bytes += size
}
