package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/aqlstore/aqlstore/canon"
)

// errStopScan ends a scan early when the consumer stops iterating.
var errStopScan = errors.New("store: scan stopped")

// Scan returns the documents of kind ("" for every kind) that the
// context's principal may see, in ascending document number. Stop
// iterating to end the scan early; an error ends it with a final
// (nil, err) pair.
func (s *Store) Scan(ctx context.Context, kind canon.Kind) iter.Seq2[*StoredDoc, error] {
	return func(yield func(*StoredDoc, error) bool) {
		principal := s.readerOf(ctx) // with its grants (grant.go)
		err := s.read(func(v *view, bs *bodies) error {
			return s.scanRecords(ctx, v, kind, func(num uint32, rec *record) error {
				return yieldDoc(yield, bs, principal, num, rec, nil, nil)
			})
		})
		if err != nil && err != errStopScan {
			yield(nil, err)
		}
	}
}

// ScanKinds is Scan over several kinds in one walk of the records: a
// document of another kind costs its record, never its body.
func (s *Store) ScanKinds(ctx context.Context, kinds []canon.Kind) iter.Seq2[*StoredDoc, error] {
	return s.ScanKindsKeeping(ctx, kinds, nil)
}

// scanRecords calls fn with every document record of kind as of v, visible
// or not, in ascending number.
func (s *Store) scanRecords(ctx context.Context, v *view, kind canon.Kind, fn func(num uint32, rec *record) error) error {
	docs := []byte{prefixDoc}
	if kind == "" {
		return v.scan(docs, prefixEnd(docs), func(key, value []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			num := binary.BigEndian.Uint32(key[1:])
			rec, err := decodeRecord(num, value)
			if err != nil {
				return err
			}
			return fn(num, &rec)
		})
	}
	recs, err := v.cursor(docs, prefixEnd(docs))
	if err != nil {
		return err
	}
	defer recs.close()
	start := AppendKindPrefix(nil, kind)
	return v.scan(start, prefixEnd(start), func(key, _ []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		num := binary.BigEndian.Uint32(key[len(key)-4:])
		rec, found, err := readRecord(recs.seek, num)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: kind key of document %d without a record", ErrCorrupt, num)
		}
		return fn(num, &rec)
	})
}

// Stats summarises a store.
type Stats struct {
	Documents  uint64                // visible to nobody in particular: all documents
	ByKind     map[canon.Kind]uint64 // documents per kind
	Blobs      uint64                // distinct contents, inline in their records or in shared blobs
	BlobBytes  uint64                // stored body bytes (after blob compression)
	BodyBytes  uint64                // canonical bytes of the distinct contents
	Receipts   uint64                // length of the receipt chain
	DiskBytes  uint64                // bytes of the database files
	NextNumber uint32                // the next document number
}

// Stats counts the store's documents and bytes. It reads every record and
// blob, so it takes time proportional to the store.
func (s *Store) Stats(ctx context.Context) (*Stats, error) {
	st := &Stats{ByKind: map[canon.Kind]uint64{}}
	v := s.kv.newView()
	defer v.close()
	blob := func(value []byte) error {
		st.Blobs++
		st.BlobBytes += uint64(len(value))
		body, err := decodeBlob(nil, value)
		st.BodyBytes += uint64(len(body))
		return err
	}
	inline := roaring.New() // contents counted in their records, whose shared blob is the same bytes
	err := s.scanRecords(ctx, v, "", func(num uint32, rec *record) error {
		st.Documents++
		st.ByKind[rec.kind]++
		if rec.blob != num {
			return nil
		}
		inline.Add(num)
		return blob(rec.inline)
	})
	if err != nil {
		return nil, err
	}
	start := []byte{prefixBlob}
	err = v.scan(start, prefixEnd(start), func(key, value []byte) error {
		if inline.Contains(binary.BigEndian.Uint32(key[1:])) {
			return nil
		}
		return blob(value)
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	st.Receipts, st.NextNumber = s.head.seq, s.nextNum
	s.mu.Unlock()
	st.DiskBytes = s.kv.diskBytes()
	return st, nil
}
