package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

// VerifyReport is what Verify found.
type VerifyReport struct {
	Blobs     int      // bodies re-hashed: inline in their records, and shared blobs
	Documents int      // document records checked
	Receipts  int      // receipts in the chain
	Problems  []string // the first maxProblems problems, each naming its key
	Count     int      // all problems found
	// Damaged lists the database files whose bytes failed Pebble's
	// checksums, each once, with the keys they hold; the problems name
	// the documents, blobs and receipts that could not be read.
	Damaged []Damage
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

// damage records a damaged file, once.
func (r *VerifyReport) damage(d *Damage) {
	for _, x := range r.Damaged {
		if x.File == d.File {
			return
		}
	}
	r.Damaged = append(r.Damaged, *d)
	r.add("%s", d)
}

// unreadable records a read that failed on damage and reports true, or
// reports false for any other error, which the caller returns.
func (r *VerifyReport) unreadable(err error, format string, args ...any) bool {
	d, _, ok := damageOf(err)
	if ok {
		r.damage(d)
		r.add("%s: unreadable, in damaged file %s", fmt.Sprintf(format, args...), d.File)
	}
	return ok
}

// Verify re-hashes every blob against the content id its documents and
// reference count name, checks every document's keys and reference
// counts, walks the receipt chain from the first receipt to the head, and
// checks the grant keys against each other and the documents.
// It reports a blob that nothing references and a reference to a missing
// blob. A damaged store yields a report with problems, not an error: a
// database file that fails its checksums is listed in Damaged, and Verify
// reads around it, naming the documents, blobs and receipts it could not
// read. The error is for failures to read at all.
func (s *Store) Verify(ctx context.Context) (*VerifyReport, error) {
	rep := &VerifyReport{}
	s.mu.Lock() // the view and the counters must be of the same instant
	v := s.kv.newView()
	nextNum, head := s.nextNum, s.head
	s.mu.Unlock()
	defer v.close()
	uses, docGaps, err := s.verifyDocuments(ctx, v, rep, nextNum)
	if err != nil {
		return nil, fmt.Errorf("store: verify documents: %w", err)
	}
	owners, err := verifyRefs(ctx, v, rep, uses, docGaps)
	if err != nil {
		return nil, fmt.Errorf("store: verify reference counts: %w", err)
	}
	if err := verifyBlobs(ctx, v, rep, owners, nextNum); err != nil {
		return nil, fmt.Errorf("store: verify blobs: %w", err)
	}
	if err := verifyColumnKeys(ctx, v, rep, nextNum); err != nil {
		return nil, fmt.Errorf("store: verify column entries: %w", err)
	}
	if err := verifyChain(ctx, v, rep, head); err != nil {
		return nil, fmt.Errorf("store: verify receipts: %w", err)
	}
	if err := verifyGrants(ctx, v, rep); err != nil {
		return nil, fmt.Errorf("store: verify grants: %w", err)
	}
	return rep, nil
}

// blobUse is what the documents say about one content: the blob number
// they name, how many of them there are, and whether one of them reads
// the content from the shared 'B' blob rather than from its own record.
type blobUse struct {
	blob   uint32
	docs   uint64
	shared bool
}

// blobOwner is the content a blob number must hold; a 'B' key must hold it
// when shared.
type blobOwner struct {
	id     canon.ContentID
	docs   uint64
	shared bool
}

// verifyDocuments checks each record's keys and tallies the documents of
// each content. It returns the ranges of document numbers it could not
// read.
func (s *Store) verifyDocuments(ctx context.Context, v *view, rep *VerifyReport, nextNum uint32) (
	map[canon.ContentID]blobUse, *gaps, error) {
	uses := map[canon.ContentID]blobUse{}
	want := func(key []byte, num uint32, what string) error {
		val, found, err := v.get(key, nil)
		switch {
		case err != nil:
			if rep.unreadable(err, "document %d: %s key", num, what) {
				return nil
			}
			return err
		case !found:
			rep.add("document %d: %s key missing", num, what)
		case len(val) == 4 && binary.BigEndian.Uint32(val) != num:
			rep.add("document %d: %s key points to document %d", num, what, binary.BigEndian.Uint32(val))
		}
		return nil
	}
	fam := numbered{prefix: prefixDoc, width: 4, limit: uint64(nextNum)}
	g := &gaps{rep: rep, what: "documents", fam: fam, note: deletedNote}
	err := v.walk([]byte{prefixDoc}, prefixEnd([]byte{prefixDoc}), func(key, value []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		rep.Documents++
		num := binary.BigEndian.Uint32(key[1:])
		rec, err := decodeRecord(num, value)
		if err != nil {
			rep.add("document %d: record unreadable: %v", num, err)
			return nil
		}
		u, seen := uses[rec.id]
		if seen && u.blob != rec.blob {
			rep.add("document %d: names blob %d for %s, which another document keeps in blob %d", num, rec.blob, rec.id, u.blob)
		} else if !seen {
			u.blob = rec.blob
		}
		u.docs++
		u.shared = u.shared || rec.blob != num
		uses[rec.id] = u
		if rec.blob == num {
			verifyInline(rep, num, &rec)
		}
		if err := verifyColumn(v, rep, num, &rec); err != nil {
			return err
		}
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
		if err != nil && !rep.unreadable(err, "document %d: kind key", num) {
			return err
		}
		if err == nil && !found {
			rep.add("document %d: kind key missing", num)
		}
		if err := s.verifyMessageKeys(num, rep); err != nil && !rep.unreadable(err, "document %d: message keys", num) {
			return err
		}
		return nil
	}, fam.next, g.add)
	g.flush()
	return uses, g, err
}

// verifyRefs compares every reference count with the documents' tally and
// returns, per blob number, the content it must hold. uses is consumed.
// When documents could not be read (docGaps), a count above the readable
// documents' tally is what the damage explains, and is reported once.
func verifyRefs(ctx context.Context, v *view, rep *VerifyReport, uses map[canon.ContentID]blobUse, docGaps *gaps) (
	map[uint32]blobOwner, error) {
	owners := make(map[uint32]blobOwner, len(uses))
	claim := func(blob uint32, id canon.ContentID, u blobUse) {
		if o, taken := owners[blob]; taken && o.id != id {
			rep.add("blob %d: claimed by both %s and %s", blob, o.id, id)
			return
		}
		owners[blob] = blobOwner{id: id, docs: u.docs, shared: u.shared}
	}
	// Reference counts are keyed by content id: after damage the walk
	// goes on from the next content a readable document uses.
	expected := make([][]byte, 0, len(uses))
	for id := range uses {
		expected = append(expected, AppendRefsKey(nil, id))
	}
	slices.SortFunc(expected, bytes.Compare)
	next := func(key []byte) []byte {
		i, found := slices.BinarySearchFunc(expected, key, bytes.Compare)
		if found {
			i++
		}
		if i == len(expected) {
			return nil
		}
		return expected[i]
	}
	explained := 0
	start := []byte{prefixRefs}
	err := v.walk(start, prefixEnd(start), func(key, value []byte) error {
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
		case n > u.docs && docGaps.any():
			explained++
		case n != u.docs:
			rep.add("blob %s: reference count %d, but %d documents use it", id, n, u.docs)
		case used && blob != u.blob:
			rep.add("blob %s: reference count names blob %d, its documents blob %d", id, blob, u.blob)
		}
		delete(uses, id)
		claim(blob, id, u)
		return nil
	}, next, func(lo, _ []byte, d *Damage) {
		rep.damage(d)
		if len(lo) == 1+len(canon.ContentID{}) {
			var id canon.ContentID
			copy(id[:], lo[1:])
			rep.add("blob %s: reference count unreadable, in damaged file %s", id, d.File)
			if u, used := uses[id]; used {
				claim(u.blob, id, u)
				delete(uses, id)
			}
		}
	})
	if explained > 0 {
		rep.add("%d reference counts are above the readable documents using them: the unreadable documents explain it", explained)
	}
	for id, u := range uses {
		rep.add("blob %s: no reference count, but %d documents use it", id, u.docs)
		claim(u.blob, id, u)
	}
	return owners, err
}

// verifyBlobs re-hashes every blob against the content its number must
// hold, and reports blobs that nothing names and names with no blob.
func verifyBlobs(ctx context.Context, v *view, rep *VerifyReport, owners map[uint32]blobOwner, nextNum uint32) error {
	fam := numbered{prefix: prefixBlob, width: 4, limit: uint64(nextNum)}
	g := &gaps{rep: rep, what: "blobs", fam: fam, note: deletedNote}
	err := v.walk([]byte{prefixBlob}, prefixEnd([]byte{prefixBlob}), func(key, value []byte) error {
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
	}, fam.next, g.add)
	g.flush()
	for _, blob := range slices.Sorted(maps.Keys(owners)) {
		o := owners[blob]
		if !o.shared {
			continue // its one document holds it inline
		}
		if g.has(uint64(blob)) {
			rep.add("blob %s (number %d, used by %d documents): unreadable", o.id, blob, o.docs)
			continue
		}
		rep.add("blob %s (number %d): missing, used by %d documents", o.id, blob, o.docs)
	}
	return err
}

// verifyColumn compares document num's column entry with its record.
func verifyColumn(v *view, rep *VerifyReport, num uint32, rec *record) error {
	val, found, err := v.get(AppendColumnKey(nil, num), nil)
	switch {
	case err != nil:
		if rep.unreadable(err, "document %d: column entry", num) {
			return nil
		}
		return err
	case !found:
		rep.add("document %d: column entry missing", num)
		return nil
	}
	sig, err := rec.decodeSignals()
	if err != nil {
		rep.add("document %d: signals unreadable: %v", num, err)
		return nil
	}
	if want := columnOf(num, rec, scoreOf(sig)); string(val) != string(appendColumn(nil, &want)) {
		rep.add("document %d: column entry disagrees with the record", num)
	}
	return nil
}

// verifyColumnKeys reports column entries of documents without a record.
func verifyColumnKeys(ctx context.Context, v *view, rep *VerifyReport, nextNum uint32) error {
	fam := numbered{prefix: prefixColumn, width: 4, limit: uint64(nextNum)}
	g := &gaps{rep: rep, what: "column entries", fam: fam, note: deletedNote}
	err := v.walk([]byte{prefixColumn}, prefixEnd([]byte{prefixColumn}), func(key, _ []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		num := binary.BigEndian.Uint32(key[1:])
		if _, found, err := v.get(AppendDocKey(nil, num), nil); err == nil && !found {
			rep.add("document %d: column entry without a record", num)
		}
		return nil
	}, fam.next, g.add)
	g.flush()
	return err
}

// verifyInline re-hashes the body document num holds in its record.
func verifyInline(rep *VerifyReport, num uint32, rec *record) {
	rep.Blobs++
	body, err := decodeBlob(nil, rec.inline)
	switch {
	case err != nil:
		rep.add("document %d: inline body of %s: %v", num, rec.id, err)
	case canon.Sum(body) != rec.id:
		rep.add("document %d: inline body of %s hashes to %s", num, rec.id, canon.Sum(body))
	}
}

// verifyChain walks the receipts in order, checking seq and prev. After
// receipts it could not read, it checks the chain again from the next
// readable one.
func verifyChain(ctx context.Context, v *view, rep *VerifyReport, head chainHead) error {
	prev := chainHead{}
	fam := numbered{prefix: prefixReceipt, width: 8, limit: head.seq + 1}
	g := &gaps{rep: rep, what: "receipts", fam: fam}
	gapped := false
	err := v.walk([]byte{prefixReceipt}, prefixEnd([]byte{prefixReceipt}), func(key, value []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		rep.Receipts++
		seq := binary.BigEndian.Uint64(key[1:])
		r, err := parseReceipt(value)
		// After unreadable receipts (gapped) the prev of the next one
		// cannot be checked: the chain is checked again from it.
		switch {
		case err != nil:
			rep.add("receipt %d: %v", seq, err)
		case !gapped && (r.Seq != prev.seq+1 || seq != r.Seq):
			rep.add("receipt %d: sequence breaks after %d", seq, prev.seq)
		case !gapped && r.Prev != hex.EncodeToString(prev.hash[:]):
			rep.add("receipt %d: prev %s does not match receipt %d (%x)", seq, r.Prev, prev.seq, prev.hash)
		case !bytes.Equal(r.appendJSON(nil), value):
			rep.add("receipt %d: stored bytes are not the receipt's canonical form", seq)
		}
		gapped = false
		prev = chainHead{seq: seq, hash: sha256.Sum256(value)}
		return nil
	}, fam.next, func(lo, hi []byte, d *Damage) {
		gapped = true
		g.add(lo, hi, d)
	})
	g.flush()
	if err != nil {
		return err
	}
	if prev != head && !gapped {
		rep.add("receipt chain ends at %d (%x) but the head says %d (%x)", prev.seq, prev.hash, head.seq, head.hash)
	}
	return nil
}

// numbered is a key family whose keys are a prefix byte and a big-endian
// number below limit: documents, blobs, receipts. Walks use it to go on
// past damage with the next number.
type numbered struct {
	prefix byte
	width  int // 4 or 8 bytes
	limit  uint64
}

func (f numbered) key(n uint64) []byte {
	if f.width == 8 {
		return binary.BigEndian.AppendUint64([]byte{f.prefix}, n)
	}
	return binary.BigEndian.AppendUint32([]byte{f.prefix}, uint32(n))
}

// num is the number of key: 0 for the bare prefix, where walks start,
// and limit for a key beyond the family.
func (f numbered) num(key []byte) uint64 {
	switch {
	case len(key) == 1 && key[0] == f.prefix:
		return 0
	case len(key) < 1+f.width || key[0] != f.prefix:
		return f.limit
	case f.width == 8:
		return binary.BigEndian.Uint64(key[1:])
	}
	return uint64(binary.BigEndian.Uint32(key[1:]))
}

func (f numbered) next(key []byte) []byte {
	if n := f.num(key) + 1; n < f.limit {
		return f.key(n)
	}
	return nil
}

// gaps collects the numbers of a family that a walk could not read, as
// ranges, and reports each range once.
type gaps struct {
	rep    *VerifyReport
	what   string // "documents"
	note   string // what to know about a range of them
	fam    numbered
	ranges [][2]uint64 // [lo, hi)
	files  []string    // the damaged file of each range
	told   int         // ranges already reported
}

// deletedNote qualifies a range of document or blob numbers: deleted
// documents leave holes that a range read around damage cannot tell.
const deletedNote = " (some numbers in the range may be of deleted documents)"

// add is the walk's bad callback: keys [lo, hi) of damaged file d.
func (g *gaps) add(lo, hi []byte, d *Damage) {
	g.rep.damage(d)
	if lo == nil {
		return
	}
	a, b := max(g.fam.num(lo), 1), g.fam.num(hi) // numbers start at 1
	if hi == nil || b > g.fam.limit {
		b = g.fam.limit
	}
	if a >= b {
		return
	}
	if n := len(g.ranges); n > g.told && g.ranges[n-1][1] == a && g.files[n-1] == d.File {
		g.ranges[n-1][1] = b
		return
	}
	g.flush()
	g.ranges = append(g.ranges, [2]uint64{a, b})
	g.files = append(g.files, d.File)
}

// flush reports the ranges not yet reported.
func (g *gaps) flush() {
	for ; g.told < len(g.ranges); g.told++ {
		r, file := g.ranges[g.told], g.files[g.told]
		if r[1]-r[0] == 1 {
			g.rep.add("%s %d: unreadable, in damaged file %s", strings.TrimSuffix(g.what, "s"), r[0], file)
			continue
		}
		g.rep.add("%s %d to %d: unreadable, in damaged file %s%s", g.what, r[0], r[1]-1, file, g.note)
	}
}

func (g *gaps) any() bool { return len(g.ranges) > 0 }

// has reports whether n is in a range the walk could not read.
func (g *gaps) has(n uint64) bool {
	for _, r := range g.ranges {
		if r[0] <= n && n < r[1] {
			return true
		}
	}
	return false
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
