package store

import (
	"context"
	"encoding/binary"
	"errors"
	"iter"

	"github.com/aqlstore/aqlstore/canon"
)

// errStopScan ends a scan early when the consumer stops iterating.
var errStopScan = errors.New("store: scan stopped")

// Scan returns the documents of kind ("" for every kind) that the
// context's principal may see, in ascending document number. Stop
// iterating to end the scan early; an error ends it with a final
// (nil, err) pair.
func (s *Store) Scan(ctx context.Context, kind canon.Kind) iter.Seq2[*Doc, error] {
	return func(yield func(*Doc, error) bool) {
		principal := Principal(ctx)
		err := s.scanRecords(ctx, kind, func(num uint32, rec *record) error {
			if !visible(principal, rec.owner) {
				return nil
			}
			doc, err := s.docFromRecord(num, rec)
			if err != nil {
				return err
			}
			if !yield(doc, nil) {
				return errStopScan
			}
			return nil
		})
		if err != nil && err != errStopScan {
			yield(nil, err)
		}
	}
}

// scanRecords calls fn with every document record of kind, visible or not.
func (s *Store) scanRecords(ctx context.Context, kind canon.Kind, fn func(num uint32, rec *record) error) error {
	if kind == "" {
		start := []byte{prefixDoc}
		return s.kv.scan(start, prefixEnd(start), func(key, value []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			rec, err := decodeRecord(value)
			if err != nil {
				return err
			}
			return fn(binary.BigEndian.Uint32(key[1:]), &rec)
		})
	}
	start := AppendKindPrefix(nil, kind)
	return s.kv.scan(start, prefixEnd(start), func(key, _ []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		num := binary.BigEndian.Uint32(key[len(key)-4:])
		v, found, err := s.kv.get(AppendDocKey(nil, num), nil)
		if err != nil {
			return err
		}
		if !found {
			return nil // deleted since the kind key was read
		}
		rec, err := decodeRecord(v)
		if err != nil {
			return err
		}
		return fn(num, &rec)
	})
}

// Stats summarises a store.
type Stats struct {
	Documents  uint64                // visible to nobody in particular: all documents
	ByKind     map[canon.Kind]uint64 // documents per kind
	Blobs      uint64                // distinct contents
	BlobBytes  uint64                // stored blob bytes (after blob compression)
	BodyBytes  uint64                // canonical bytes of the distinct contents
	Receipts   uint64                // length of the receipt chain
	DiskBytes  uint64                // bytes of the database files
	NextNumber uint32                // the next document number
}

// Stats counts the store's documents and bytes. It reads every record and
// blob, so it takes time proportional to the store.
func (s *Store) Stats(ctx context.Context) (*Stats, error) {
	st := &Stats{ByKind: map[canon.Kind]uint64{}}
	err := s.scanRecords(ctx, "", func(_ uint32, rec *record) error {
		st.Documents++
		st.ByKind[rec.kind]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	start := []byte{prefixBlob}
	err = s.kv.scan(start, prefixEnd(start), func(_, value []byte) error {
		st.Blobs++
		st.BlobBytes += uint64(len(value))
		body, err := decodeBlob(nil, value)
		st.BodyBytes += uint64(len(body))
		return err
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
