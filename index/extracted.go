package index

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/aqlstore/aqlstore/store"
)

// extracted is one document's postings as Extract finds them, before any
// path has an id: entries of uvarint(len path) path fam uvarint(len
// value) value, in the order the walk emits them. Extract runs on many
// documents at once, outside the writer lock; AddExtracted then only
// looks paths up and appends numbers.
type extracted struct {
	doc     store.IndexedDoc // Canonical and View dropped: the walk is done
	entries []byte
}

var extractors = sync.Pool{New: func() any { return new(extractor) }}

// Extract implements store.IndexExtractor. It reads the text paths
// (guarded by their own lock) and nothing the writer changes.
func (ix *Index) Extract(doc store.IndexedDoc) (any, error) {
	if len(doc.Canonical) == 0 {
		return nil, fmt.Errorf("index: document is empty")
	}
	x := extractors.Get().(*extractor)
	defer extractors.Put(x)
	out := &extracted{doc: doc}
	out.doc.Canonical, out.doc.View = nil, nil
	buf := make([]byte, 0, 8<<10)
	x.emit = func(p []byte, fam byte, value []byte) {
		buf = binary.AppendUvarint(buf, uint64(len(p)))
		buf = append(append(buf, p...), fam)
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
	out.entries = buf
	return out, nil
}

// AddExtracted implements store.IndexExtractor: Add for what Extract
// returned.
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
	var last []byte // a path's entries come together: look its id up once
	var id uint32
	for e := x.entries; len(e) > 0; {
		n, k := binary.Uvarint(e)
		p := e[k : k+int(n)]
		fam := e[k+int(n)]
		e = e[k+int(n)+1:]
		n, k = binary.Uvarint(e)
		value := e[k : k+int(n)]
		e = e[k+int(n):]
		if last == nil || string(p) != string(last) {
			last, id = p, ix.pathID(p)
		}
		ix.key = append(appendPathKey(ix.key[:0], fam, id), value...)
		into.add(ix.key, num)
	}
	return nil
}

// FlushRun implements store.IndexExtractor: the rank keys and postings
// recorded so far, then forgets them; new paths wait for Flush.
func (ix *Index) FlushRun(w *store.IndexWriter) error {
	if err := ix.ranks.flush(w); err != nil {
		return err
	}
	if err := ix.adds.flushAdds(w); err != nil {
		return err
	}
	ix.adds.reset()
	clear(ix.ranks)
	ix.runs = true
	return nil
}

// count returns the number of postings x holds.
func (x *extracted) count() int {
	n := 0
	for e := x.entries; len(e) > 0; n++ {
		l, k := binary.Uvarint(e)
		e = e[k+int(l)+1:]
		l, k = binary.Uvarint(e)
		e = e[k+int(l):]
	}
	return n
}
