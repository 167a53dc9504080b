package store

import (
	"context"
	"encoding/binary"
	"iter"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/aqlstore/aqlstore/canon"
)

// Keep decides, from a visible document's JSON bytes (its canonical body,
// or the JSON view of a PAIRL message), whether a read builds and yields
// it. A document Keep turns down costs no copy of its record and no
// decode of its signals: a consumer that would throw most documents away
// (a full scan whose constraints most fail) says so before they are made.
// The bytes are the store's, valid during the call only. Keep is called
// on the goroutine that iterates, just before the document would be
// yielded, so it may read and update the consumer's state between
// documents.
type Keep func(num uint32, json []byte) bool

// ScanKindsKeeping is ScanKinds yielding only the documents keep accepts
// (nil keep: every one). The records are read in place: a document of
// another kind, one the reader may not see, or one keep turns down is
// never copied.
func (s *Store) ScanKindsKeeping(ctx context.Context, kinds []canon.Kind, keep Keep) iter.Seq2[*StoredDoc, error] {
	return func(yield func(*StoredDoc, error) bool) {
		principal := s.readerOf(ctx) // with its grants (grant.go)
		err := s.read(func(v *view, bs *bodies) error {
			docs := []byte{prefixDoc}
			n := 0
			return v.visit(docs, prefixEnd(docs), func(key, value []byte) (bool, error) {
				if n++; n%64 == 0 {
					if err := ctx.Err(); err != nil {
						return false, err
					}
				}
				num := binary.BigEndian.Uint32(key[1:])
				keep := keep // cleared below for a document it already accepted
				p, ok := peekRecord(num, value)
				if ok {
					if !p.of(kinds) {
						return true, nil
					}
					switch p.visibleTo(principal, num) {
					case hidden:
						return true, nil
					case shown:
						if json := p.json(); keep != nil && json != nil {
							if !keep(num, json) {
								return true, nil
							}
							keep = nil // it said yes: not asked again
						}
					}
				}
				rec, err := decodeRecord(num, append([]byte(nil), value...))
				if err != nil {
					return false, err
				}
				if !slices.Contains(kinds, rec.kind) {
					return true, nil
				}
				return true, yieldDoc(yield, bs, principal, num, &rec, keep, nil)
			})
		})
		if err != nil && err != errStopScan {
			yield(nil, err)
		}
	}
}

// FetchKeeping is Fetch yielding only the documents keep accepts (nil
// keep: every one).
func (s *Store) FetchKeeping(ctx context.Context, nums *roaring.Bitmap, sequential bool, keep Keep) iter.Seq2[*StoredDoc, error] {
	return s.fetch(ctx, nums, sequential, keep)
}

// recordPeek is what a walk reads of a record in place, before it decides
// to copy and decode it: no allocation, every slice the record's own.
type recordPeek struct {
	kind, owner []byte
	body        []byte // the canonical bytes of an inline body stored as they are; nil otherwise
	head        int    // the length of the record's head: every byte before its inline body
}

// peekRecord reads the kind, owner and uncompressed inline body of
// document num's record v; ok is false when it cannot, and decodeRecord
// then says why.
func peekRecord(num uint32, v []byte) (p recordPeek, ok bool) {
	const idLen = len(canon.ContentID{})
	whole := v
	if len(v) < 1+idLen || v[0] != recordVersion {
		return p, false
	}
	v = v[1+idLen:]
	back, k := binary.Uvarint(v)
	if k <= 0 || back >= uint64(num) {
		return p, false
	}
	v = v[k:]
	var fields [4][]byte
	for i := range fields {
		n, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < n {
			return p, false
		}
		fields[i], v = v[k:k+int(n)], v[k+int(n):]
	}
	_, k = binary.Uvarint(v)
	if own := back == 0; k <= 0 || own == (k == len(v)) { // decodeRecord's checks: a body exactly when its own
		return p, false
	}
	p.kind, p.owner, p.head = fields[0], fields[1], len(whole)-len(v)+k
	if inline := v[k:]; back == 0 && len(inline) > 0 && inline[0] == codecNone {
		p.body = inline[1:]
	}
	return p, true
}

// of reports whether the record is of one of kinds.
func (p *recordPeek) of(kinds []canon.Kind) bool {
	return slices.ContainsFunc(kinds, func(k canon.Kind) bool { return string(p.kind) == string(k) })
}

// json returns the JSON a test may read in place: the inline body, but
// for PAIRL, whose body is its text and whose JSON is a view made on
// decoding; nil when there is none.
func (p *recordPeek) json() []byte {
	if string(p.kind) == string(canon.KindPAIRL) {
		return nil
	}
	return p.body
}

// visibility is what a record's owner tells of whether a reader sees it.
type visibility int

const (
	shown  visibility = iota // public, or the reader's own
	hidden                   // another tenant's, not granted to the reader
	ask                      // maybe granted: sees reads the grant
)

// visibleTo is sees without a read: the owner and the reader's grant
// bitmap answer, or say to ask.
func (p *recordPeek) visibleTo(r reader, num uint32) visibility {
	switch {
	case string(p.owner) == Public || string(p.owner) == r.principal:
		return shown
	case r.principal == Public || r.granted != nil && !r.granted.Contains(num):
		return hidden
	}
	return ask
}
