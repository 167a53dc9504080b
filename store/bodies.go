package store

import "encoding/binary"

// bodies reads the bodies of documents visited in ascending number, as
// scans and candidate fetches visit them, all as of one view. Blobs are
// keyed by blob number, which is the document's own number unless its
// content was stored before, so the blobs of such a walk come in key order
// too: one cursor reads them sequentially (a merge join of the 'D' and 'B'
// key spaces on the number), and only a blob numbered below the last one
// read, shared content stored first by an earlier document, costs a point
// read. The cursor is opened by the first read that uses it: a walk that
// reads no body, or reads by points only, never pays for positioning it.
// Not safe for concurrent use.
type bodies struct {
	v      *view
	cur    *cursor // nil until the first forward read
	last   uint32  // the highest blob number read through cur
	points bool    // every blob by a point read: a handful of scattered reads (readFew)
}

func (b *bodies) close() {
	if b.cur != nil {
		_ = b.cur.close()
	}
}

// body returns the canonical bytes of document num, whose record is rec.
func (b *bodies) body(num uint32, rec *record) ([]byte, error) {
	return readBody(b.get, num, rec)
}

// get reads a blob key: forward through the cursor, backward by a point
// read that leaves the cursor where it stands.
func (b *bodies) get(key, dst []byte) ([]byte, bool, error) {
	blob := binary.BigEndian.Uint32(key[1:])
	if b.points || blob < b.last {
		return b.v.get(key, dst)
	}
	if b.cur == nil {
		start := []byte{prefixBlob}
		cur, err := b.v.cursor(start, prefixEnd(start))
		if err != nil {
			return dst, false, err
		}
		b.cur = cur
	}
	b.last = blob
	return b.cur.seek(key, dst)
}

// read runs fn on a new view of the store and a body reader on it, and
// closes both.
func (s *Store) read(fn func(v *view, bs *bodies) error) error {
	return s.readView(func(v *view) error {
		bs := &bodies{v: v}
		defer bs.close()
		return fn(v, bs)
	})
}

// readView runs fn on a new view of the store, for reads of records and
// keys only, and closes it.
func (s *Store) readView(fn func(v *view) error) error {
	v := s.kv.newView()
	defer v.close()
	return fn(v)
}
