package index

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/aqlstore/aqlstore/store"
)

// extracted is one document's postings as Extract finds them, before any
// path has an id: the document's paths, in the order the walk reaches
// them (a path met again after another is listed again), and entries of
// uvarint(path index) fam uvarint(len value) value. Extract runs on many
// documents at once, outside the writer lock; AddExtracted then only
// looks the paths up, and the shards append numbers.
type extracted struct {
	doc     store.IndexInput // Canonical and View dropped: the walk is done
	entries []byte
	paths   []byte   // the paths, end to end
	ends    []uint32 // path i is paths[ends[i-1]:ends[i]]
	ids     []uint32 // path i's id, set by AddExtracted
}

// path returns the i-th path.
func (x *extracted) path(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = x.ends[i-1]
	}
	return x.paths[start:x.ends[i]]
}

var extractors = sync.Pool{New: func() any { return new(extractor) }}

// Extract implements store.IndexExtractor. It reads the text paths
// (guarded by their own lock) and nothing the writer changes.
func (ix *Index) Extract(doc store.IndexInput) (any, error) {
	if len(doc.Canonical) == 0 {
		return nil, fmt.Errorf("index: document is empty")
	}
	x := extractors.Get().(*extractor)
	defer extractors.Put(x)
	out := &extracted{doc: doc}
	out.doc.Canonical, out.doc.View = nil, nil
	buf := make([]byte, 0, 4<<10)
	paths := make([]byte, 0, 2<<10)
	ends := make([]uint32, 0, 64)
	x.emit = func(p []byte, fam byte, value []byte) {
		if n := len(ends); n == 0 || string(p) != string(paths[pathStart(ends, n-1):]) {
			paths = append(paths, p...)
			ends = append(ends, uint32(len(paths)))
		}
		buf = binary.AppendUvarint(buf, uint64(len(ends)-1))
		buf = append(buf, fam)
		buf = binary.AppendUvarint(buf, uint64(len(value)))
		buf = append(buf, value...)
	}
	ix.mu.RLock()
	text := ix.text // a reindex may replace it
	ix.mu.RUnlock()
	x.text = func(p []byte) bool { return text.isTextPath(p) }
	x.path = x.path[:0]
	x.walk(doc.JSON())
	x.emit, x.text = nil, nil
	out.entries, out.paths, out.ends = buf, paths, ends
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
	x.ids = x.ids[:0]
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

// count returns the number of postings x holds.
func (x *extracted) count() int {
	n := 0
	for e := x.entries; len(e) > 0; n++ {
		_, k := binary.Uvarint(e)
		e = e[k+1:]
		l, k := binary.Uvarint(e)
		e = e[k+int(l):]
	}
	return n
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
