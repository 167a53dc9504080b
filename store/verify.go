package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// VerifyReport is what Verify found.
type VerifyReport struct {
	Blobs     int      // blobs re-hashed
	Documents int      // document records checked
	Receipts  int      // receipts in the chain
	Problems  []string // the first maxProblems problems, each naming its key
	Count     int      // all problems found
}

// OK reports whether Verify found nothing wrong.
func (r *VerifyReport) OK() bool { return r.Count == 0 }

const maxProblems = 100

func (r *VerifyReport) add(format string, args ...any) {
	r.Count++
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// Verify re-hashes every blob, checks every document's keys and reference
// counts, and walks the receipt chain from the first receipt to the head.
// A damaged store yields a report with problems, not an error; the error is
// for failures to read at all.
func (s *Store) Verify(ctx context.Context) (*VerifyReport, error) {
	rep := &VerifyReport{}
	refs, err := s.verifyDocuments(ctx, rep)
	if err != nil {
		return nil, err
	}
	if err := s.verifyBlobs(ctx, rep, refs); err != nil {
		return nil, err
	}
	if err := s.verifyChain(ctx, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// verifyDocuments checks each record's keys and counts references per blob.
func (s *Store) verifyDocuments(ctx context.Context, rep *VerifyReport) (map[canon.ContentID]uint64, error) {
	refs := map[canon.ContentID]uint64{}
	s.mu.Lock()
	nextNum := s.nextNum
	s.mu.Unlock()
	want := func(key []byte, num uint32, what string) error {
		v, found, err := s.kv.get(key, nil)
		if err != nil {
			return err
		}
		if !found {
			rep.add("document %d: %s key missing", num, what)
		} else if len(v) == 4 && binary.BigEndian.Uint32(v) != num {
			rep.add("document %d: %s key points to document %d", num, what, binary.BigEndian.Uint32(v))
		}
		return nil
	}
	err := s.scanRecords(ctx, "", func(num uint32, rec *record) error {
		rep.Documents++
		refs[rec.id]++
		if num >= nextNum {
			rep.add("document %d: number is not below the next number %d", num, nextNum)
		}
		if err := want(AppendIDKey(nil, rec.id, rec.owner, rec.naturalKey), num, "content id"); err != nil {
			return err
		}
		if rec.naturalKey != "" {
			if err := want(AppendNaturalKey(nil, rec.kind, rec.owner, rec.naturalKey), num, "natural"); err != nil {
				return err
			}
		}
		_, found, err := s.kv.get(AppendKindKey(nil, rec.kind, num), nil)
		if err == nil && !found {
			rep.add("document %d: kind key missing", num)
		}
		if err != nil {
			return err
		}
		return s.verifyMessageKeys(num, rep)
	})
	return refs, err
}

// verifyBlobs re-hashes every blob and compares reference counts.
func (s *Store) verifyBlobs(ctx context.Context, rep *VerifyReport, refs map[canon.ContentID]uint64) error {
	start := []byte{prefixBlob}
	err := s.kv.scan(start, prefixEnd(start), func(key, value []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		rep.Blobs++
		var id canon.ContentID
		copy(id[:], key[1:])
		body, err := decodeBlob(nil, value)
		if err != nil {
			rep.add("blob %s: %v", id, err)
		} else if canon.Sum(body) != id {
			rep.add("blob %s: bytes hash to %s", id, canon.Sum(body))
		}
		v, found, err := s.kv.get(AppendRefsKey(nil, id), nil)
		if err != nil {
			return err
		}
		n, _ := binary.Uvarint(v)
		if !found || n != refs[id] {
			rep.add("blob %s: reference count %d, but %d documents use it", id, n, refs[id])
		}
		delete(refs, id)
		return nil
	})
	for id, n := range refs {
		rep.add("blob %s: missing, used by %d documents", id, n)
	}
	return err
}

// verifyChain walks the receipts in order, checking seq and prev.
func (s *Store) verifyChain(ctx context.Context, rep *VerifyReport) error {
	prev := chainHead{}
	start := []byte{prefixReceipt}
	err := s.kv.scan(start, prefixEnd(start), func(key, value []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		rep.Receipts++
		seq := binary.BigEndian.Uint64(key[1:])
		r, err := parseReceipt(value)
		if err != nil {
			rep.add("receipt %d: %v", seq, err)
		} else if r.Seq != prev.seq+1 || seq != r.Seq {
			rep.add("receipt %d: sequence breaks after %d", seq, prev.seq)
		} else if r.Prev != hex.EncodeToString(prev.hash[:]) {
			rep.add("receipt %d: prev %s does not match receipt %d (%x)", seq, r.Prev, prev.seq, prev.hash)
		} else if canonical := r.appendJSON(nil); !bytes.Equal(canonical, value) {
			rep.add("receipt %d: stored bytes are not the receipt's canonical form", seq)
		}
		prev = chainHead{seq: seq, hash: sha256.Sum256(value)}
		return nil
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	head := s.head
	s.mu.Unlock()
	if prev != head {
		rep.add("receipt chain ends at %d (%x) but the head says %d (%x)", prev.seq, prev.hash, head.seq, head.hash)
	}
	return nil
}

// Receipts returns the receipt chain from seq from (1 for the start).
func (s *Store) Receipts(ctx context.Context, from uint64, fn func(*Receipt) error) error {
	start := AppendReceiptKey(nil, from)
	end := prefixEnd([]byte{prefixReceipt})
	return s.kv.scan(start, end, func(_, value []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := parseReceipt(value)
		if err != nil {
			return err
		}
		return fn(r)
	})
}
