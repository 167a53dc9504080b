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

// Verify re-hashes every blob against the content id its documents and
// reference count name, checks every document's keys and reference
// counts, and walks the receipt chain from the first receipt to the head.
// It reports a blob that nothing references and a reference to a missing
// blob. A damaged store yields a report with problems, not an error; the
// error is for failures to read at all.
func (s *Store) Verify(ctx context.Context) (*VerifyReport, error) {
	rep := &VerifyReport{}
	v := s.kv.newView()
	defer v.close()
	uses, err := s.verifyDocuments(ctx, v, rep)
	if err != nil {
		return nil, err
	}
	owners, err := verifyRefs(ctx, v, rep, uses)
	if err != nil {
		return nil, err
	}
	if err := verifyBlobs(ctx, v, rep, owners); err != nil {
		return nil, err
	}
	if err := s.verifyChain(ctx, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// blobUse is what the documents say about one content: the blob number
// they name and how many of them there are.
type blobUse struct {
	blob uint32
	docs uint64
}

// blobOwner is the content a blob number must hold.
type blobOwner struct {
	id   canon.ContentID
	docs uint64
}

// verifyDocuments checks each record's keys and tallies the documents of
// each content.
func (s *Store) verifyDocuments(ctx context.Context, v *view, rep *VerifyReport) (map[canon.ContentID]blobUse, error) {
	uses := map[canon.ContentID]blobUse{}
	s.mu.Lock()
	nextNum := s.nextNum
	s.mu.Unlock()
	want := func(key []byte, num uint32, what string) error {
		val, found, err := v.get(key, nil)
		if err != nil {
			return err
		}
		if !found {
			rep.add("document %d: %s key missing", num, what)
		} else if len(val) == 4 && binary.BigEndian.Uint32(val) != num {
			rep.add("document %d: %s key points to document %d", num, what, binary.BigEndian.Uint32(val))
		}
		return nil
	}
	err := s.scanRecords(ctx, v, "", func(num uint32, rec *record) error {
		rep.Documents++
		u, seen := uses[rec.id]
		if seen && u.blob != rec.blob {
			rep.add("document %d: names blob %d for %s, which another document keeps in blob %d", num, rec.blob, rec.id, u.blob)
		} else if !seen {
			u.blob = rec.blob
		}
		u.docs++
		uses[rec.id] = u
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
		_, found, err := v.get(AppendKindKey(nil, rec.kind, num), nil)
		if err == nil && !found {
			rep.add("document %d: kind key missing", num)
		}
		if err != nil {
			return err
		}
		return s.verifyMessageKeys(num, rep)
	})
	return uses, err
}

// verifyRefs compares every reference count with the documents' tally and
// returns, per blob number, the content it must hold. uses is consumed.
func verifyRefs(ctx context.Context, v *view, rep *VerifyReport, uses map[canon.ContentID]blobUse) (map[uint32]blobOwner, error) {
	owners := make(map[uint32]blobOwner, len(uses))
	claim := func(blob uint32, id canon.ContentID, docs uint64) {
		if o, taken := owners[blob]; taken && o.id != id {
			rep.add("blob %d: claimed by both %s and %s", blob, o.id, id)
			return
		}
		owners[blob] = blobOwner{id: id, docs: docs}
	}
	start := []byte{prefixRefs}
	err := v.scan(start, prefixEnd(start), func(key, value []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var id canon.ContentID
		copy(id[:], key[1:])
		blob, n, ok := decodeRefs(value)
		if !ok {
			rep.add("blob %s: reference count unreadable", id)
			return nil
		}
		u, used := uses[id]
		switch {
		case n != u.docs:
			rep.add("blob %s: reference count %d, but %d documents use it", id, n, u.docs)
		case used && blob != u.blob:
			rep.add("blob %s: reference count names blob %d, its documents blob %d", id, blob, u.blob)
		}
		delete(uses, id)
		claim(blob, id, u.docs)
		return nil
	})
	for id, u := range uses {
		rep.add("blob %s: no reference count, but %d documents use it", id, u.docs)
		claim(u.blob, id, u.docs)
	}
	return owners, err
}

// verifyBlobs re-hashes every blob against the content its number must
// hold, and reports blobs that nothing names and names with no blob.
func verifyBlobs(ctx context.Context, v *view, rep *VerifyReport, owners map[uint32]blobOwner) error {
	start := []byte{prefixBlob}
	err := v.scan(start, prefixEnd(start), func(key, value []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		rep.Blobs++
		blob := binary.BigEndian.Uint32(key[1:])
		o, named := owners[blob]
		body, err := decodeBlob(nil, value)
		switch {
		case !named:
			rep.add("blob %d: no document or reference count names it", blob)
		case err != nil:
			rep.add("blob %s (number %d): %v", o.id, blob, err)
		case canon.Sum(body) != o.id:
			rep.add("blob %s (number %d): bytes hash to %s", o.id, blob, canon.Sum(body))
		}
		delete(owners, blob)
		return nil
	})
	for blob, o := range owners {
		rep.add("blob %s (number %d): missing, used by %d documents", o.id, blob, o.docs)
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
