package store

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/aqlstore/aqlstore/canon"
)

// Columns. What a resolver needs to filter, rank and cut a page — a
// document's kind, owner, score and candidate id, and whether it exists at
// all — is kept in memory, in dense arrays indexed by document number, so
// that visibility and ranking read no record. The arrays are loaded at
// open from the 'L' key family (one short value per document, written
// with the record by setRecord and deleted with it), not from the records,
// which hold the bodies.
//
// A commit publishes a new *Columns; readers hold one and see one commit,
// never half of one. The arrays are cut into chunks of columnChunk
// documents, and a commit copies only the chunks it changes (and the
// slice of chunk pointers), so its cost follows the commit, not the store.
// The kind and owner tables only grow: a commit appends to them past the
// end that earlier *Columns see, which they never read.

// columnChunk is how many documents one chunk holds.
const columnChunk = 1 << 10

// chunk is the columns of columnChunk consecutive documents. It holds no
// pointer per document: the scores and candidate ids are bytes in one
// array (text), found by offset. Held as a string each, a million
// documents were a million objects and two million pointers that every
// garbage collection marked again: on 1,000,000 manifests the columns
// were 97% of the live heap and each cycle took about 33 ms of CPU, paid
// by the queries running (GODEBUG=gctrace=1, BenchmarkResolveRanges);
// as bytes, about 5 ms.
type chunk struct {
	kind  [columnChunk]uint16 // 1 + index into Columns.kinds; 0: no document
	owner [columnChunk]uint32 // index into Columns.owners
	// Entry i's score is text[at[i]:mid[i]] and its candidate id
	// text[mid[i]:end[i]]. text is never written once a reader may hold
	// the chunk (a commit builds the chunks it changes afresh), so the
	// strings read from it share its bytes.
	at, mid, end [columnChunk]uint32
	text         []byte
	dead         int // bytes of text that no entry uses any more
}

// str returns text[from:to] as a string sharing the chunk's bytes.
func (ch *chunk) str(from, to uint32) string {
	if from == to {
		return ""
	}
	return unsafe.String(&ch.text[from], int(to-from))
}

// put sets entry i's score and candidate id, appending them to text.
func (ch *chunk) put(i uint32, score, cand []byte) {
	ch.at[i] = uint32(len(ch.text))
	ch.text = append(ch.text, score...)
	ch.mid[i] = uint32(len(ch.text))
	ch.text = append(ch.text, cand...)
	ch.end[i] = uint32(len(ch.text))
}

// drop forgets entry i's score and candidate id, whose bytes stay in
// text, dead, until the chunk is compacted.
func (ch *chunk) drop(i uint32) {
	if ch.kind[i] != 0 {
		ch.dead += int(ch.end[i] - ch.at[i])
	}
	ch.at[i], ch.mid[i], ch.end[i] = 0, 0, 0
}

// clone returns a copy of ch that shares nothing with it, for a commit
// to change. The text is copied as it is (a commit changing one entry
// copies about 60 KB, not 1,024 entries one by one) unless most of it is
// dead, when only the live entries are.
func (ch *chunk) clone() *chunk {
	fresh := new(chunk)
	*fresh = *ch
	if ch.dead <= len(ch.text)/2 {
		fresh.text = append(make([]byte, 0, len(ch.text)+len(ch.text)/8+64), ch.text...)
		return fresh
	}
	fresh.text, fresh.dead = make([]byte, 0, len(ch.text)-ch.dead+64), 0
	for i := range uint32(columnChunk) {
		if ch.kind[i] != 0 {
			fresh.put(i, ch.text[ch.at[i]:ch.mid[i]], ch.text[ch.mid[i]:ch.end[i]])
		}
	}
	return fresh
}

// Columns is the per-document columns as of one commit. It is immutable:
// safe for concurrent use, and valid for as long as the caller keeps it.
type Columns struct {
	chunks []*chunk
	kinds  []canon.Kind
	owners []string
}

// Has reports whether document num exists.
func (c *Columns) Has(num uint32) bool {
	ch := c.chunk(num)
	return ch != nil && ch.kind[num%columnChunk] != 0
}

// Kind returns document num's kind, "" when there is no such document.
func (c *Columns) Kind(num uint32) canon.Kind {
	if ch := c.chunk(num); ch != nil && ch.kind[num%columnChunk] != 0 {
		return c.kinds[ch.kind[num%columnChunk]-1]
	}
	return ""
}

// Owner returns document num's owner, "" when there is no such document.
func (c *Columns) Owner(num uint32) string {
	if ch := c.chunk(num); ch != nil && ch.kind[num%columnChunk] != 0 {
		return c.owners[ch.owner[num%columnChunk]]
	}
	return ""
}

// Score returns document num's score, "" when it has none. The string
// shares the columns' bytes (it keeps about 64 KB of them alive).
func (c *Columns) Score(num uint32) canon.Number {
	if ch := c.chunk(num); ch != nil {
		i := num % columnChunk
		return canon.Number(ch.str(ch.at[i], ch.mid[i]))
	}
	return ""
}

// CandidateID returns what a resolver names document num by: its natural
// key where it has one, else its content id; "" when there is no such
// document. The string shares the columns' bytes, as Score's does.
func (c *Columns) CandidateID(num uint32) string {
	if ch := c.chunk(num); ch != nil {
		i := num % columnChunk
		return ch.str(ch.mid[i], ch.end[i])
	}
	return ""
}

func (c *Columns) chunk(num uint32) *chunk {
	if i := int(num / columnChunk); i < len(c.chunks) {
		return c.chunks[i]
	}
	return nil
}

// column is one document's entry, as a commit sets it.
type column struct {
	num   uint32
	kind  canon.Kind // "" deletes the entry
	owner string
	score canon.Number
	cand  string
}

// columnOf is the column entry of document num with record rec.
func columnOf(num uint32, rec *record, score canon.Number) column {
	return column{num: num, kind: rec.kind, owner: rec.owner, score: score, cand: candidateID(rec.naturalKey, rec.id)}
}

// appendColumn appends the value of document num's 'L' key.
func appendColumn(dst []byte, c *column) []byte {
	for _, s := range []string{string(c.kind), c.owner, string(c.score), c.cand} {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	return dst
}

// columnFields splits the value of document num's 'L' key into kind,
// owner, score and candidate id; they share v's bytes.
func columnFields(num uint32, v []byte) ([4][]byte, error) {
	var f [4][]byte
	for i := range f {
		n, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < n {
			return f, fmt.Errorf("%w: column entry of document %d: truncated", ErrCorrupt, num)
		}
		f[i], v = v[k:k+int(n)], v[k+int(n):]
	}
	if len(v) != 0 || len(f[0]) == 0 {
		return f, fmt.Errorf("%w: column entry of document %d: %d bytes after it, or no kind", ErrCorrupt, num, len(v))
	}
	return f, nil
}

// columnTables interns kinds and owners for the writer. Only the writer
// (under Store.mu, or Open before the store is shared) touches it.
type columnTables struct {
	kinds  map[string]uint16 // string keys: a lookup by string(bytes) allocates nothing
	owners map[string]uint32
}

// apply returns the columns after edits, sharing every chunk they leave
// alone with c.
func (t *columnTables) apply(c *Columns, edits []column) (*Columns, error) {
	n := &Columns{chunks: c.chunks, kinds: c.kinds, owners: c.owners}
	copied := map[int]bool{}
	for i := range edits {
		e := &edits[i]
		ci := int(e.num / columnChunk)
		if !copied[ci] {
			if ci >= len(n.chunks) {
				grown := make([]*chunk, ci+1)
				copy(grown, n.chunks)
				n.chunks = grown
			} else if len(copied) == 0 {
				n.chunks = append([]*chunk(nil), n.chunks...)
			}
			fresh := new(chunk)
			if old := n.chunks[ci]; old != nil {
				fresh = old.clone()
			}
			n.chunks[ci], copied[ci] = fresh, true
		}
		if err := t.set(n, n.chunks[ci], e); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// set writes one entry into ch, a chunk of n that no reader holds yet.
func (t *columnTables) set(n *Columns, ch *chunk, e *column) error {
	i := e.num % columnChunk
	if e.kind == "" {
		ch.drop(i)
		ch.kind[i], ch.owner[i] = 0, 0
		return nil
	}
	k, err := t.kind(n, []byte(e.kind))
	if err != nil {
		return err
	}
	ch.drop(i)
	ch.kind[i], ch.owner[i] = k, t.owner(n, []byte(e.owner))
	ch.put(i, []byte(e.score), []byte(e.cand))
	return nil
}

// kind interns a kind, appending it to n's table when it is new.
func (t *columnTables) kind(n *Columns, kind []byte) (uint16, error) {
	if t.kinds == nil {
		t.kinds, t.owners = map[string]uint16{}, map[string]uint32{}
	}
	if k, ok := t.kinds[string(kind)]; ok {
		return k, nil
	}
	if len(n.kinds) >= 1<<16-1 {
		return 0, fmt.Errorf("%w: more than %d document kinds", ErrInvalid, 1<<16-1)
	}
	n.kinds = append(n.kinds, canon.Kind(kind))
	t.kinds[string(kind)] = uint16(len(n.kinds))
	return uint16(len(n.kinds)), nil
}

// owner interns an owner, appending it to n's table when it is new.
func (t *columnTables) owner(n *Columns, owner []byte) uint32 {
	if o, ok := t.owners[string(owner)]; ok {
		return o
	}
	o := uint32(len(n.owners))
	n.owners = append(n.owners, string(owner))
	t.owners[string(owner)] = o
	return o
}

// Columns returns the per-document columns as of the last commit.
func (s *Store) Columns() *Columns { return s.cols.Load() }

// loadColumns reads the 'L' key family into memory at open, before any
// reader holds the columns: entries are written in place.
func (s *Store) loadColumns() error {
	c := &Columns{}
	last := 0 // the text of the chunk loaded last
	start := []byte{prefixColumn}
	err := s.kv.visit(start, prefixEnd(start), func(key, value []byte) (bool, error) {
		if len(key) != 5 {
			return false, fmt.Errorf("%w: column key of %d bytes", ErrCorrupt, len(key))
		}
		num := binary.BigEndian.Uint32(key[1:])
		f, err := columnFields(num, value)
		if err != nil {
			return false, err
		}
		ci := int(num / columnChunk)
		for len(c.chunks) <= ci {
			c.chunks = append(c.chunks, nil)
		}
		if c.chunks[ci] == nil {
			// Sized by the chunk before it: a store's documents are
			// alike, and a text grown from nothing was twice its size in
			// garbage by the end of the load.
			c.chunks[ci] = &chunk{text: make([]byte, 0, last+last/8)}
		}
		ch, i := c.chunks[ci], num%columnChunk
		if ch.kind[i], err = s.colTables.kind(c, f[0]); err != nil {
			return false, err
		}
		// Pebble's bytes are copied into the chunk's text, nothing is
		// allocated per document.
		ch.owner[i] = s.colTables.owner(c, f[1])
		ch.put(i, f[2], f[3])
		last = len(ch.text)
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("store: load columns: %w", err)
	}
	s.cols.Store(c)
	return nil
}
