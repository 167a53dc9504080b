package index

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/aqlstore/aqlstore/store"
)

// extracted is one document's postings as Extract finds them, before any
// path has an id: the document's paths, in the order the walk reaches
// them (a path met again after another is listed again), and entries of
// uvarint(path index) fam uvarint(len value) value. Every listed path
// exists in the document, so existence postings have no entries: the
// shards add one per listed path. Extract runs on many
// documents at once, outside the writer lock; AddExtracted then only
// looks the paths up, and the shards append numbers.
type extracted struct {
	doc store.IndexInput // Canonical and View dropped: the walk is done
	// noBuckets: extracted while a load ran, without range buckets (the
	// load's merge derives them); added by a mutation after the load,
	// the shards derive them from the range postings instead.
	noBuckets bool
	entries   []byte
	paths     []byte   // the paths, end to end
	ends      []uint32 // path i is paths[ends[i-1]:ends[i]]
	ids       []uint32 // path i's id, set by AddExtracted
}

// path returns the i-th path.
func (x *extracted) path(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = x.ends[i-1]
	}
	return x.paths[start:x.ends[i]]
}

// extractors are extractors with a recorder each, whose buffers, once
// grown to a document's postings, serve the next documents.
var extractors = sync.Pool{New: func() any {
	e := &recordingExtractor{}
	e.emit = e.rec.emit
	return e
}}

// recordingExtractor is an extractor whose postings go to its recorder.
type recordingExtractor struct {
	extractor
	rec recorder
}

// recorder keeps the postings and paths of the document being walked,
// as extracted lays them out. Its emit writes into buffers kept from
// document to document, growing them only when a document needs more,
// and stores a slice header only then: a closure appending to captured
// slices paid for a growth by doubling per document and a GC write
// barrier per posting.
type recorder struct {
	entries []byte
	paths   []byte
	ends    []uint32
}

func (r *recorder) reset() {
	r.entries, r.paths, r.ends = r.entries[:0], r.paths[:0], r.ends[:0]
}

func (r *recorder) emit(p []byte, fam byte, value []byte) {
	if n := len(r.ends); n == 0 || string(p) != string(r.paths[pathStart(r.ends, n-1):]) {
		r.paths = append(r.paths, p...)
		r.ends = append(r.ends, uint32(len(r.paths)))
	}
	if fam == famExists {
		return // implied by the path's being listed
	}
	at := len(r.entries)
	need := 2*binary.MaxVarintLen64 + 1 + len(value)
	if cap(r.entries)-at < need {
		r.entries = slices.Grow(r.entries, need)
	}
	e := r.entries[at : at+need]
	k := binary.PutUvarint(e, uint64(len(r.ends)-1))
	e[k] = fam
	k++
	k += binary.PutUvarint(e[k:], uint64(len(value)))
	k += copy(e[k:], value)
	r.entries = r.entries[:at+k]
}

// Extract implements store.IndexExtractor. It reads the text paths
// (guarded by their own lock) and nothing the writer changes.
func (ix *Index) Extract(doc store.IndexInput) (any, error) {
	return ix.extract(doc, ix.loading.Load())
}

// extract is Extract, leaving the range buckets out with noBuckets.
func (ix *Index) extract(doc store.IndexInput, noBuckets bool) (any, error) {
	if len(doc.Canonical) == 0 {
		return nil, fmt.Errorf("index: document is empty")
	}
	x := extractors.Get().(*recordingExtractor)
	defer extractors.Put(x)
	out := &extracted{doc: doc, noBuckets: noBuckets}
	out.doc.Canonical, out.doc.View = nil, nil
	ix.mu.RLock()
	text := ix.text // a reindex may replace it
	ix.mu.RUnlock()
	x.text = text.isTextPath
	x.path = x.path[:0]
	x.rec.reset()
	x.noBuckets = noBuckets
	x.walk(doc.JSON())
	x.text, x.noBuckets = nil, false
	// The document's own copy, sized to it: entries and paths share one
	// allocation.
	r := &x.rec
	b := make([]byte, len(r.entries)+len(r.paths))
	copy(b[copy(b, r.entries):], r.paths)
	out.entries, out.paths = b[:len(r.entries):len(r.entries)], b[len(r.entries):]
	out.ends = slices.Clone(r.ends)
	return out, nil
}

func pathStart(ends []uint32, i int) uint32 {
	if i == 0 {
		return 0
	}
	return ends[i-1]
}

// AddExtracted implements store.IndexExtractor: Add for what Extract
// returned. The writer gives each path its id; the shards add the
// postings.
func (ix *Index) AddExtracted(num uint32, v any) error {
	x, ok := v.(*extracted)
	if !ok {
		return fmt.Errorf("index: document %d: extracted by another indexer (%T)", num, v)
	}
	var err error
	if ix.key, err = ix.ranks.note(x.doc, num, true, ix.key); err != nil {
		return err
	}
	into := ix.adds
	into.add(appendFamily(ix.key[:0], famAll), num)
	into.add(append(appendFamily(ix.key[:0], famKind), x.doc.Kind...), num)
	into.add(append(appendFamily(ix.key[:0], famOwner), x.doc.Owner...), num)
	// Sized once: grown by appends, a document's ids were copied at
	// every doubling.
	x.ids = slices.Grow(x.ids[:0], len(x.ends))
	for i := range x.ends {
		x.ids = append(x.ids, ix.pathID(x.path(i)))
	}
	ix.sh.add(num, x)
	return nil
}

// FlushRun implements store.IndexExtractor: the rank keys and postings
// recorded so far, then forgets them; new paths wait for Flush.
func (ix *Index) FlushRun(w *store.IndexWriter) error {
	if err := ix.ranks.flush(w, &ix.rank); err != nil {
		return err
	}
	if err := ix.flushAdds(w); err != nil {
		return err
	}
	ix.adds.reset()
	ix.sh.resetRun() // the next run grows them back: keep their memory
	clear(ix.ranks)
	ix.runs = true // the delta Done sees no longer holds these postings
	return nil
}

// flushAdds writes the added postings: the writer's (kind, owner, every
// document, and Add's), then the shards', once they are done.
func (ix *Index) flushAdds(w *store.IndexWriter) error {
	ix.sh.wait()
	for _, s := range ix.addSets() {
		if err := s.flushAdds(w); err != nil {
			return err
		}
	}
	return nil
}

// addSets are the sets the added postings are in; the caller has waited
// for the shards.
func (ix *Index) addSets() []*postingSet { return append([]*postingSet{ix.adds}, ix.sh.sets...) }

// Derived implements store.IndexDeriver: a load leaves the range
// buckets out of its runs and derives them from the range postings,
// which hold every value a bucket is a prefix of. A load otherwise
// gathered 62 bucket postings per manifest, one per bucket level of each
// ranged value, through the posting sets, the runs and their sort and
// merge (on 1,000,000 manifests, aqlstore put, about 7 of 82 user CPU-s
// with them dropped, before anything derived them); the merge now ORs
// each range posting into its two or three buckets, in key order.
func (ix *Index) Derived() (to, from byte) { return famBucket, famRange }

// StartLoad implements store.IndexDeriver: until Done, the shards skip
// bucket postings, and Extract leaves them out (a document it extracts
// then may still be added after the load, by a mutation that waited for
// it: the shards derive that one's buckets, extracted.noBuckets).
func (ix *Index) StartLoad() {
	ix.sh.skip, _ = ix.Derived()
	ix.loading.Store(true)
}

// Derive implements store.IndexDeriver: the keys of the buckets of the
// value of range key key (path id, then the type and sortable value),
// as extraction writes them for the value (extractor.ranged).
func (ix *Index) Derive(key, buf []byte, fn func(derived []byte)) []byte {
	const head = 2 + 4 // prefix, family, path id
	if len(key) < head+1 || key[0] != store.IndexPrefix || key[1] != famRange {
		return buf
	}
	k := key[head:]
	for level, n := range bucketLevels(k[0]) {
		buf = appendBucket(append(appendFamily(buf[:0], famBucket), key[2:head]...), k, level, n)
		fn(buf)
	}
	return buf
}
