package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/aqlstore/aqlstore/canon"
)

// Get returns the document ref names, if the context's principal may see
// it. A Ref with Num set is looked up by number (and its ID, when set, must
// match); otherwise by ID, preferring the principal's own copy, then one
// granted to it (the lowest-numbered), then the public one. A document the
// reader may not see is ErrNotFound, exactly like one that does not exist.
func (s *Store) Get(ctx context.Context, ref Ref) (*StoredDoc, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	principal := Principal(ctx)
	if ref.Num == 0 {
		num, err := s.numByID(ref.ID, principal)
		if err != nil {
			return nil, err
		}
		ref.Num = num
	}
	doc, err := s.docByNum(ref.Num)
	if err != nil {
		return nil, err
	}
	ok, err := sees(s.kv.get, s.readerFor(principal), ref.Num, doc.Owner)
	if err != nil {
		return nil, fmt.Errorf("store: get: %w", err)
	}
	if !ok || (!ref.ID.IsZero() && ref.ID != doc.ID) {
		return nil, ErrNotFound
	}
	return doc, nil
}

// Lookup returns the document of kind whose natural key is key: the
// principal's own, else one granted to it (the lowest-numbered), else the
// public one.
func (s *Store) Lookup(ctx context.Context, kind canon.Kind, key string) (*StoredDoc, error) {
	for _, owner := range readOwners(Principal(ctx)) {
		v, found, err := s.kv.get(AppendNaturalKey(nil, kind, owner, key), nil)
		if err != nil {
			return nil, fmt.Errorf("store: lookup: %w", err)
		}
		if found {
			return s.docByNum(binary.BigEndian.Uint32(v))
		}
		if owner != Public { // documents granted to the reader come after its own (grant.go)
			if num, err := s.grantedByKey(kind, key, owner); err != ErrNotFound {
				if err != nil {
					return nil, err
				}
				return s.docByNum(num)
			}
		}
	}
	return nil, ErrNotFound
}

// readOwners lists the owners whose documents principal reads, own first.
func readOwners(principal string) []string {
	if principal == Public {
		return []string{Public}
	}
	return []string{principal, Public}
}

func (s *Store) numByID(id canon.ContentID, principal string) (uint32, error) {
	for _, owner := range readOwners(principal) {
		num, err := s.firstByID(id, owner)
		if err != ErrNotFound {
			return num, err
		}
		if owner != Public { // documents granted to the reader come after its own (grant.go)
			if num, err = s.grantedByID(id, owner); err != ErrNotFound {
				return num, err
			}
		}
	}
	return 0, ErrNotFound
}

// firstByID returns the lowest-keyed document of owner with content id
// (several candidates may share one record under different ids).
func (s *Store) firstByID(id canon.ContentID, owner string) (uint32, error) {
	start := append(AppendIDPrefix(nil, id, owner), 0)
	num, found := uint32(0), false
	err := s.kv.scan(start, prefixEnd(start), func(_, v []byte) error {
		num, found = binary.BigEndian.Uint32(v), true
		return errStopScan
	})
	if err != nil && err != errStopScan {
		return 0, fmt.Errorf("store: get: %w", err)
	}
	if !found {
		return 0, ErrNotFound
	}
	return num, nil
}

// docByNum reads a document's record and body, without a visibility check.
func (s *Store) docByNum(num uint32) (*StoredDoc, error) {
	rec, found, err := readRecord(s.kv.get, num)
	if err != nil {
		return nil, fmt.Errorf("store: get %d: %w", num, err)
	}
	if !found {
		return nil, ErrNotFound
	}
	body, err := readBody(s.kv.get, num, &rec)
	if err != nil {
		return nil, fmt.Errorf("store: get: %w", err)
	}
	return docFromBody(num, &rec, body)
}

// docFromBody makes the StoredDoc of document num from its record and body.
func docFromBody(num uint32, rec *record, body []byte) (*StoredDoc, error) {
	doc := new(StoredDoc)
	return doc, fillDoc(doc, num, rec, body)
}

// fillDoc sets doc to document num, from its record and body.
func fillDoc(doc *StoredDoc, num uint32, rec *record, body []byte) error {
	sig, err := rec.decodeSignals()
	if err != nil {
		return err
	}
	view, err := viewOf(rec.kind, body)
	if err != nil {
		return fmt.Errorf("document %d: %w", num, err)
	}
	*doc = StoredDoc{Ref: rec.ref(num), NaturalKey: rec.naturalKey, Body: body, View: view, Signals: sig, Seq: rec.seq}
	return nil
}

// Fetch returns, in ascending number, the documents whose numbers are in
// nums (nil: none) and that the context's principal may see, all as of
// one instant.
// sequential walks the document records in key order instead of seeking
// each number: the planner chooses it when the candidates are a large
// share of the store. Either way the bodies are read in number order.
func (s *Store) Fetch(ctx context.Context, nums *roaring.Bitmap, sequential bool) iter.Seq2[*StoredDoc, error] {
	return s.fetch(ctx, nums, sequential, nil)
}

// FetchLent is FetchKeeping lending its documents rather than giving
// them: the Doc yielded and every byte it holds are valid only until the
// loop goes on to the next one, for they are read into one buffer that
// the next document reuses. A caller that keeps anything of a document
// (its ID, a slice of its body) copies it first. A resolver judging each
// candidate once, keeping only what it copies out, then reads its
// candidates with no allocation per record.
func (s *Store) FetchLent(ctx context.Context, nums *roaring.Bitmap, sequential bool, keep Keep) iter.Seq2[*StoredDoc, error] {
	return s.fetchInto(ctx, nums, sequential, keep, new(lender))
}

// lender holds what FetchLent reuses from one document to the next.
type lender struct {
	key, value []byte
	doc        StoredDoc
}

// fetch is Fetch yielding only the documents keep accepts (nil: all).
func (s *Store) fetch(ctx context.Context, nums *roaring.Bitmap, sequential bool, keep Keep) iter.Seq2[*StoredDoc, error] {
	return s.fetchInto(ctx, nums, sequential, keep, nil)
}

// fetchInto is fetch lending its documents from l (FetchLent), or giving
// them when l is nil. A fetch of a few documents that the store read at
// its current write count takes them from s.hot (hotdocs.go), and one
// that reads them leaves them there.
func (s *Store) fetchInto(ctx context.Context, nums *roaring.Bitmap, sequential bool, keep Keep, l *lender) iter.Seq2[*StoredDoc, error] {
	return func(yield func(*StoredDoc, error) bool) {
		if nums == nil {
			return // no numbers, no documents
		}
		principal := s.readerOf(ctx)
		n := nums.GetCardinality()
		epoch := s.kv.writeEpoch()
		hot := n > 0 && n <= hotFetchMax && quiet(epoch)
		if hot {
			if err := s.fetchHot(ctx, principal, nums, epoch, keep, l, yield); err != errHotMiss {
				if err != nil && err != errStopScan {
					yield(nil, err)
				}
				return
			}
		}
		few := !sequential && n <= fewCandidates // a handful of point reads (fetchfew.go)
		read := s.read
		if few {
			read = s.readFew
		}
		err := read(func(v *view, bs *bodies) error {
			emit := func(num uint32, rec *record) error {
				if !hot {
					return yieldDoc(yield, bs, principal, num, rec, keep, l)
				}
				body, err := bs.body(num, rec)
				if err != nil {
					return fmt.Errorf("store: %w", err)
				}
				s.hot.note(s.kv, epoch, num, rec, body)
				return yieldBody(yield, v.get, principal, num, rec, body, keep, l)
			}
			switch {
			case sequential:
				return s.fetchSequential(ctx, v, nums, emit, l)
			case few:
				return eachRecord(ctx, nums, l.records(v.get), emit)
			}
			return s.fetchPoints(ctx, v, nums, emit, l)
		})
		if err != nil && err != errStopScan {
			yield(nil, err)
		}
	}
}

// errHotMiss says fetchHot found a document of the fetch missing from
// the cache, before it yielded anything.
var errHotMiss = errors.New("store: not every document of the fetch is cached")

// fetchHot yields the documents of nums from s.hot when every one of
// them is there at write count epoch; errHotMiss, having yielded
// nothing, when one is not. Whether principal may see each is read from
// a view of the store as it is.
func (s *Store) fetchHot(ctx context.Context, principal reader, nums *roaring.Bitmap, epoch uint64, keep Keep, l *lender,
	yield func(*StoredDoc, error) bool) error {
	var buf [16]*hotDoc
	docs, ok := s.hot.lookup(nums, epoch, buf[:0])
	if !ok {
		return errHotMiss
	}
	s.hot.hits.Add(1)
	return s.readFew(func(v *view, _ *bodies) error {
		it := nums.Iterator()
		for _, d := range docs {
			if err := ctx.Err(); err != nil {
				return err
			}
			rec, body := d.rec, d.body // a lent document may read the cache's bytes, never change them
			if l == nil {
				body = bytes.Clone(body) // a given document is the caller's own
			}
			if err := yieldBody(yield, v.get, principal, it.Next(), &rec, body, keep, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// yieldDoc reads document num and yields it when principal may see it
// and keep (when not nil) accepts its JSON bytes; errStopScan when the
// consumer stops. The Doc is l's when l is not nil (FetchLent).
func yieldDoc(yield func(*StoredDoc, error) bool, bs *bodies, principal reader, num uint32, rec *record, keep Keep, l *lender) error {
	if ok, err := sees(bs.v.get, principal, num, rec.owner); err != nil || !ok {
		return err
	}
	body, err := bs.body(num, rec)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return yieldSeen(yield, num, rec, body, keep, l)
}

// yieldBody is yieldDoc of the body already read; get reads the grants.
func yieldBody(yield func(*StoredDoc, error) bool, get func(key, dst []byte) ([]byte, bool, error), principal reader,
	num uint32, rec *record, body []byte, keep Keep, l *lender) error {
	if ok, err := sees(get, principal, num, rec.owner); err != nil || !ok {
		return err
	}
	return yieldSeen(yield, num, rec, body, keep, l)
}

// yieldSeen is yieldBody of a document principal may see.
func yieldSeen(yield func(*StoredDoc, error) bool, num uint32, rec *record, body []byte, keep Keep, l *lender) error {
	if keep != nil && rec.kind != canon.KindPAIRL && !keep(num, body) {
		return nil
	}
	var doc *StoredDoc
	if l != nil {
		doc = &l.doc
	} else {
		doc = new(StoredDoc)
	}
	if err := fillDoc(doc, num, rec, body); err != nil {
		return err
	}
	if keep != nil && rec.kind == canon.KindPAIRL && !keep(num, doc.View) {
		return nil
	}
	if !yield(doc, nil) {
		return errStopScan
	}
	return nil
}

// fetchPoints seeks each candidate's record with one cursor: candidates
// come in ascending order, so each seek starts where the last one ended
// (BenchmarkFetchPoints, 20k manifests: as fast as a point read per
// candidate at 0.1%, 1.3x at 1%, 2.4x at 10%, 3x at 50%).
func (s *Store) fetchPoints(ctx context.Context, v *view, nums *roaring.Bitmap, emit func(uint32, *record) error, l *lender) error {
	start := []byte{prefixDoc}
	recs, err := v.cursor(start, prefixEnd(start))
	if err != nil {
		return err
	}
	defer recs.close()
	return eachRecord(ctx, nums, recs.records(l), emit)
}

// eachRecord reads the record of every number in nums with read and
// calls emit with those that exist.
func eachRecord(ctx context.Context, nums *roaring.Bitmap, read func(num uint32) (record, bool, error),
	emit func(uint32, *record) error) error {
	it := nums.Iterator()
	var rec record // one for every record: emit keeps no pointer to it
	for it.HasNext() {
		if err := ctx.Err(); err != nil {
			return err
		}
		num := it.Next()
		var found bool
		var err error
		rec, found, err = read(num)
		if err != nil {
			return err
		}
		if !found {
			continue // deleted since the candidates were computed
		}
		if err := emit(num, &rec); err != nil {
			return err
		}
	}
	return nil
}

// records reads records through get: into l's buffers, reused from one
// record to the next, when l is not nil.
func (l *lender) records(get func(key, dst []byte) ([]byte, bool, error)) func(num uint32) (record, bool, error) {
	if l == nil {
		return func(num uint32) (record, bool, error) { return readRecord(get, num) }
	}
	return func(num uint32) (record, bool, error) { return l.readRecord(get, num) }
}

// records reads records through the cursor. With a lender (FetchLent) a
// record's bytes are not copied: they are Pebble's, lent until the
// cursor's next seek, which is as long as a lent document lives (the
// copy of a 3.4 KB manifest was about 1.5 µs of the 25–38 a candidate of
// a 0.1% range cost on 1,000,000 manifests).
func (c *cursor) records(l *lender) func(num uint32) (record, bool, error) {
	if l == nil {
		return func(num uint32) (record, bool, error) { return readRecord(c.seek, num) }
	}
	return func(num uint32) (record, bool, error) {
		l.key = AppendDocKey(l.key[:0], num)
		v, found, err := c.lend(l.key)
		if err != nil || !found {
			return record{}, found, err
		}
		rec, err := decodeRecord(num, v)
		return rec, true, err
	}
}

func (s *Store) fetchSequential(ctx context.Context, v *view, nums *roaring.Bitmap, emit func(uint32, *record) error, l *lender) error {
	if nums.IsEmpty() {
		return nil
	}
	start := AppendDocKey(nil, nums.Minimum())
	end := AppendDocKey(nil, nums.Maximum()+1)
	if nums.Maximum() == ^uint32(0) {
		end = prefixEnd([]byte{prefixDoc})
	}
	var rec record // one for every record: emit keeps no pointer to it
	return v.visit(start, end, func(key, value []byte) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		num := binary.BigEndian.Uint32(key[1:])
		if !nums.Contains(num) {
			return true, nil // records hold bodies: copy only the candidates'
		}
		// A lent document lives until the consumer asks for the next,
		// which is within this call: it may hold Pebble's bytes, as the
		// cursor's records do.
		if l == nil {
			value = append([]byte(nil), value...)
		}
		var err error
		if rec, err = decodeRecord(num, value); err != nil {
			return false, err
		}
		return true, emit(num, &rec)
	})
}

// readRecord is readRecord into l's buffers: the record's bytes are valid
// until the next read.
func (l *lender) readRecord(get func(key, dst []byte) ([]byte, bool, error), num uint32) (rec record, found bool, err error) {
	l.key = AppendDocKey(l.key[:0], num)
	v, found, err := get(l.key, l.value[:0])
	if err != nil || !found {
		return record{}, found, err
	}
	l.value = v
	rec, err = decodeRecord(num, v)
	return rec, true, err
}
