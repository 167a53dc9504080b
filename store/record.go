package store

import (
	"encoding/binary"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// Ref names one stored document: its content, kind, owner and number.
type Ref struct {
	ID    canon.ContentID // sha256 of the canonical bytes
	Kind  canon.Kind
	Owner string // tenant DID, or Public
	Num   uint32 // dense document number, the document's bit in every bitmap

	// Created is set on a Ref returned by Put or PutBatch when that call
	// stored the document, and clear when the same owner already stored
	// the same content (an idempotent put). Decided under the writer
	// lock, so of two identical puts racing, exactly one creates.
	Created bool
}

// Public is the owner of documents every reader may see.
const Public = "public"

// StoredDoc is a stored document as a reader receives it. Its bytes
// belong to the caller.
type StoredDoc struct {
	Ref
	NaturalKey string
	Body       []byte         // canonical bytes (RFC 8785 for JSON kinds, the §8 text for PAIRL)
	View       []byte         // the RFC 8785 JSON view when it is not Body (PAIRL), else nil
	Signals    *canon.Signals // nil when the document has none
	Seq        uint64         // the receipt that stored it
}

// JSON returns the document's JSON view, what AQL evaluates and indexes
// hold: View when set, else Body.
func (d *StoredDoc) JSON() []byte {
	if d.View != nil {
		return d.View
	}
	return d.Body
}

// Value decodes the document's JSON view (JSON).
// The bytes are canonical and passed the store's limits when they were
// put, so they are decoded with the fast canonical decoder and no limits:
// a store opened later with smaller limits still reads them.
func (d *StoredDoc) Value() (any, error) { return canon.DecodeCanonical(d.JSON()) }

// record is the value of a 'D' key.
type record struct {
	id         canon.ContentID
	blob       uint32 // the blob's number: the document's own, unless its content was stored before
	kind       canon.Kind
	owner      string
	naturalKey string
	signals    []byte // JSON of canon.Signals, empty when none
	seq        uint64
	// inline is the blob value (blob.go: codec byte, payload) of content
	// the document stored first (blob == num): its body, read with the
	// record in one point read. Nil when the content was stored before
	// by another document, whose 'B' blob then holds it.
	inline []byte
}

// recordVersion 3 carries the body of unique content after the seq.
const recordVersion = 3

// append appends the encoding of document num's record to dst. The blob
// number is stored as num - blob, one byte for unique content, whose blob
// value follows the seq to the end of the record.
func (r *record) append(dst []byte, num uint32) []byte {
	dst = r.appendHead(dst, num)
	if r.blob == num {
		dst = append(dst, r.inline...)
	}
	return dst
}

// appendHead appends the record's encoding up to its inline body: all of
// it for content stored before; the blob value follows for the
// document's own content.
func (r *record) appendHead(dst []byte, num uint32) []byte {
	dst = append(dst, recordVersion)
	dst = append(dst, r.id[:]...)
	dst = binary.AppendUvarint(dst, uint64(num-r.blob))
	for _, s := range []string{string(r.kind), r.owner, r.naturalKey, string(r.signals)} {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	return binary.AppendUvarint(dst, r.seq)
}

// readRecord reads and decodes document num's record through get (the
// committed store, or a mutation's batch); found is false when there is
// none.
func readRecord(get func(key, dst []byte) ([]byte, bool, error), num uint32) (rec record, found bool, err error) {
	v, found, err := get(AppendDocKey(nil, num), nil)
	if err != nil || !found {
		return record{}, found, err
	}
	rec, err = decodeRecord(num, v)
	return rec, true, err
}

// decodeRecord decodes the record of document num. The record keeps v's
// bytes (its inline body): v must be the caller's to give.
func decodeRecord(num uint32, v []byte) (record, error) { return decodeRecordAs(num, v, false) }

// decodeRecordHead decodes the head of document num's record (every
// byte before its inline body, recordPeek.head): a record without inline.
func decodeRecordHead(num uint32, head []byte) (record, error) {
	return decodeRecordAs(num, head, true)
}

func decodeRecordAs(num uint32, v []byte, headOnly bool) (record, error) {
	var r record
	bad := func(what string) (record, error) { return r, fmt.Errorf("%w: document record: %s", ErrCorrupt, what) }
	if len(v) < 1+len(r.id) || v[0] != recordVersion {
		return bad("short or unknown version")
	}
	copy(r.id[:], v[1:])
	v = v[1+len(r.id):]
	back, k := binary.Uvarint(v)
	if k <= 0 || back >= uint64(num) {
		return bad("bad blob number")
	}
	own := back == 0
	r.blob, v = num-uint32(back), v[k:]
	var fields [4][]byte
	for i := range fields {
		n, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < n {
			return bad("truncated field")
		}
		fields[i] = v[k : k+int(n) : k+int(n)]
		v = v[k+int(n):]
	}
	// The kind and a public owner are one of a few strings: shared, not
	// allocated per record read. The signals keep v's bytes, as the
	// inline body does.
	r.kind, r.owner, r.naturalKey = recordKind(fields[0]), recordOwner(fields[1]), string(fields[2])
	if len(fields[3]) > 0 {
		r.signals = fields[3]
	}
	seq, k := binary.Uvarint(v)
	switch {
	case k <= 0:
		return bad("truncated seq")
	case headOnly && k != len(v):
		return bad(fmt.Sprintf("%d bytes after the seq of a record's head", len(v)-k))
	case own && !headOnly && k == len(v):
		return bad("no body after the seq of content the document stored first")
	case !own && k != len(v):
		return bad(fmt.Sprintf("%d bytes after the seq", len(v)-k))
	}
	r.seq = seq
	if own && !headOnly {
		r.inline = v[k:]
	}
	return r, nil
}

// recordKinds are the kinds a record names, by their bytes.
var recordKinds = func() map[string]canon.Kind {
	m := map[string]canon.Kind{}
	for _, k := range append(canon.Kinds(), canon.MessageKinds()...) {
		m[string(k)] = k
	}
	return m
}()

// recordKind is the kind b names, without allocating for a known one.
func recordKind(b []byte) canon.Kind {
	if k, ok := recordKinds[string(b)]; ok {
		return k
	}
	return canon.Kind(b)
}

// recordOwner is the owner b names, without allocating for Public.
func recordOwner(b []byte) string {
	if string(b) == Public {
		return Public
	}
	return string(b)
}

func (r *record) ref(num uint32) Ref { return Ref{ID: r.id, Kind: r.kind, Owner: r.owner, Num: num} }

func (r *record) decodeSignals() (*canon.Signals, error) {
	if len(r.signals) == 0 {
		return nil, nil
	}
	v, err := canon.Decode(r.signals, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: signals: %v", ErrCorrupt, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: signals are not an object", ErrCorrupt)
	}
	s, err := canon.ParseSignals(m)
	if err != nil {
		return nil, fmt.Errorf("%w: signals: %v", ErrCorrupt, err)
	}
	return s, nil
}

// encodeSignals returns the JSON stored for s: canonical, with numbers and
// amounts as they were given.
func encodeSignals(s *canon.Signals) []byte {
	if s == nil {
		return nil
	}
	return canon.AppendValue(nil, s.Value())
}
