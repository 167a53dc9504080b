package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// Document is what Put stores.
type Document struct {
	Body  []byte     // JSON in any formatting, or PAIRL text; canonicalized by Put
	Kind  canon.Kind // "" detects the kind (ParseDocument)
	Owner string     // "" means the context's principal
	// Signals, optional, override the signals given in the candidate
	// shape. They are checked and stored in canonical form
	// (canon.Signals.Canonical: a score of 1.50 is stored as 1.5); a
	// score that is not a JSON number within the double range, or a cost
	// that is not a decimal string, is ErrInvalid.
	Signals *canon.Signals
	// Parsed, when set, is the document already parsed (by ParseDocument
	// or Store.Parse); Body and Kind are then ignored, so nothing is
	// parsed twice. A Parsed built otherwise is ErrInvalid: its bytes
	// would be stored unchecked.
	Parsed *Parsed
	// Unbound says what to do with an AIDP observation whose envelope is
	// not stored: reject (the default) or quarantine.
	Unbound UnboundPolicy
}

// Put stores one document durably: when Put returns nil the document, its
// keys and its receipt are on disk. Putting the identical document again is
// idempotent and returns the same Ref. Different content under a used
// natural key is a *ConflictError.
func (s *Store) Put(ctx context.Context, doc Document) (Ref, error) {
	refs, err := s.PutBatch(ctx, []Document{doc})
	if err != nil {
		if be, ok := err.(*BatchError); ok {
			return Ref{}, be.Err
		}
		return Ref{}, err
	}
	return refs[0], nil
}

// BatchError says which document of a batch failed; nothing of the batch
// was stored.
type BatchError struct {
	Index int // position in the batch, from 0
	Err   error
}

// Error names the document as a person counts, from 1.
func (e *BatchError) Error() string { return fmt.Sprintf("document %d: %v", e.Index+1, e.Err) }
func (e *BatchError) Unwrap() error { return e.Err }

// PutBatch stores docs in one atomic, durable commit: all of them or, on
// any error, none. Errors are *BatchError naming the failing document.
// Documents are parsed and their postings extracted by parallel workers
// before the writer lock is taken (Prepare); under it the writer only
// numbers, checks keys and commits.
func (s *Store) PutBatch(ctx context.Context, docs []Document) ([]Ref, error) {
	prep, err := s.PrepareAll(ctx, docs)
	if err != nil {
		return nil, err
	}
	return s.commitPuts(ctx, prep, s.probe(prep))
}

// commitPuts writes prepared documents in one batch under the writer lock
// and waits for the fsync outside it. pr is what probe found of them
// before the lock, used when no write came between.
func (s *Store) commitPuts(ctx context.Context, docs []*Prepared, pr probed) ([]Ref, error) {
	s.mu.Lock()
	if err := s.checkOpen(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	m := s.newMutation(ctx)
	if s.kv.unchangedSince(pr.epoch) && len(pr.absent) == len(docs) {
		m.mine = map[string]struct{}{}
	}
	refs := make([]Ref, len(docs))
	for i, d := range docs {
		if m.mine != nil {
			m.absent = pr.absent[i]
		}
		ref, err := m.put(d)
		if err != nil {
			m.abort()
			return nil, &BatchError{Index: i, Err: err}
		}
		refs[i] = ref
	}
	if err := m.finish(); err != nil {
		return nil, err
	}
	return refs, nil
}

// mutation is one batch being built under the writer lock. It carries the
// next number and chain head as they will be once the batch commits.
type mutation struct {
	s         *Store
	b         *batch
	w         docSink // where the document keys go: b, or a Loader's run
	principal string
	nextNum   uint32
	head      chainHead
	// Scratch buffers, reused by every document: sinks copy what they
	// are given and read keys only during the call. buf holds a key,
	// val a value; rec the record being written, rcpt the receipt.
	buf, val, rec, rcpt []byte
	dry                 bool       // a DryRun: never indexed, never committed
	cols                []column   // column entries set or cleared, published by finish
	threads             pairlCache // PAIRL messages read or written by the mutation
	// mine holds the reference and natural keys this mutation wrote,
	// when commitPuts trusts what probe found absent (nil otherwise);
	// absent is what probe found of the document being put.
	mine   map[string]struct{}
	absent absentKeys
}

func (s *Store) newMutation(ctx context.Context) *mutation {
	b := s.kv.newBatch()
	return &mutation{s: s, b: b, w: b, principal: Principal(ctx), nextNum: s.nextNum, head: s.head}
}

// abort drops the mutation and releases the writer lock.
func (m *mutation) abort() {
	if m.dry {
		m.b.close()
		return
	}
	if ix := m.s.opts.Indexer; ix != nil {
		ix.Done(false)
	}
	m.s.mu.Unlock()
	m.b.close()
}

// finish applies the batch, publishes the new counters, releases the writer
// lock and waits for durability. The caller holds s.mu; finish unlocks it.
func (m *mutation) finish() error {
	s := m.s
	if m.b.empty() {
		m.abort()
		return nil
	}
	sealed, err := m.b.sealed()
	if err != nil {
		m.abort()
		return fmt.Errorf("store: commit: %w", err)
	}
	if m.w == docSink(m.b) {
		m.w = sealed
	}
	m.b = sealed
	ix := s.opts.Indexer
	if ix != nil {
		if err := ix.Flush(&IndexWriter{b: m.b}); err != nil {
			m.abort()
			return fmt.Errorf("store: index: %w", err)
		}
	}
	if m.nextNum != s.nextNum {
		_ = m.b.set(metaNextNum, binary.BigEndian.AppendUint32(nil, m.nextNum))
	}
	if m.head != s.head {
		_ = m.b.set(metaChainHead, m.head.append(nil))
	}
	cols := s.cols.Load()
	if len(m.cols) > 0 {
		var err error
		if cols, err = s.colTables.apply(cols, m.cols); err != nil {
			m.abort()
			return fmt.Errorf("store: commit: %w", err)
		}
	}
	// The columns change with the database, in one step for readers that
	// take both (Store.snapshot).
	s.pub.Lock()
	err = s.kv.apply(m.b, !s.opts.NoSync)
	if err == nil {
		s.cols.Store(cols)
	}
	s.pub.Unlock()
	if err != nil {
		m.abort()
		return fmt.Errorf("store: commit: %w", err)
	}
	if ix != nil {
		ix.Done(true)
	}
	s.nextNum, s.head = m.nextNum, m.head
	s.notifyLocked()
	s.mu.Unlock()
	if err := m.b.wait(); err != nil {
		return fmt.Errorf("store: sync: %w", err)
	}
	return nil
}

// put adds one document to the mutation, or returns the existing Ref when
// the same owner already stores the same content.
func (m *mutation) put(pd *Prepared) (Ref, error) {
	p, owner, id := pd.p, pd.owner, pd.id
	d := &p.Document
	// Content no document holds (the usual put) cannot be stored under
	// this owner either: the reference count answers both, and the id
	// key is read only for content that is stored. A new document with
	// a natural key costs two point reads, one without costs one.
	blob, n, err := m.refsUnlessAbsent(id)
	if err != nil {
		return Ref{}, err
	}
	if n > 0 {
		if ref, found, err := m.existing(id, d, owner); found || err != nil {
			return ref, err
		}
	}
	if d.NaturalKey != "" && !m.knownAbsent(absentNatural, AppendNaturalKey(m.buf[:0], d.Kind, owner, d.NaturalKey)) {
		if err := m.checkNaturalKey(id, d, owner); err != nil {
			return Ref{}, replayOf(p, err)
		}
	}
	msg, err := m.checkMessage(p, owner, pd.unbound)
	if err != nil {
		return Ref{}, err
	}
	if m.nextNum == 0 {
		return Ref{}, fmt.Errorf("%w: the store has used every document number", ErrInvalid)
	}
	num := m.nextNum
	m.nextNum++
	rec := record{id: id, kind: d.Kind, owner: owner, naturalKey: d.NaturalKey,
		signals: encodeSignals(d.Signals), seq: m.head.seq + 1}
	if err := m.setRecord(num, &rec, d.Canonical, blob, n); err != nil {
		return Ref{}, err
	}
	m.writeDoc(num, &rec)
	if m.mine != nil {
		m.mine[string(AppendRefsKey(m.buf[:0], id))] = struct{}{}
		if d.NaturalKey != "" {
			m.mine[string(AppendNaturalKey(m.buf[:0], d.Kind, owner, d.NaturalKey))] = struct{}{}
		}
	}
	if err := m.writeMessage(num, p, owner, msg); err != nil {
		return Ref{}, err
	}
	if err := m.index(num, pd); err != nil {
		return Ref{}, err
	}
	m.appendReceipt(Receipt{Principal: m.principal, Op: "put", Kind: d.Kind, Owner: owner, Num: num, HashAfter: id.String()})
	ref := rec.ref(num)
	ref.Created = true
	return ref, nil
}

// writeDoc writes the keys that find document num with record rec: its
// id key, natural key and kind key (setRecord writes the record itself).
// Every path that stores a document (a mutation, a Loader) goes through
// put, so a change of the record reaches them all.
func (m *mutation) writeDoc(num uint32, rec *record) {
	w := m.w
	m.val = binary.BigEndian.AppendUint32(m.val[:0], num)
	m.buf = AppendIDKey(m.buf[:0], rec.id, rec.owner, rec.naturalKey)
	_ = w.set(m.buf, m.val)
	if rec.naturalKey != "" {
		m.buf = AppendNaturalKey(m.buf[:0], rec.kind, rec.owner, rec.naturalKey)
		_ = w.set(m.buf, m.val)
	}
	m.buf = AppendKindKey(m.buf[:0], rec.kind, num)
	_ = w.set(m.buf, nil)
}

// index hands document num to the indexer: what Prepare extracted when
// the indexer is an IndexExtractor, else the document itself.
func (m *mutation) index(num uint32, pd *Prepared) error {
	ix := m.s.opts.Indexer
	if ix == nil || m.dry {
		return nil
	}
	var err error
	// What Extract returned, nil included (an extractor may have
	// nothing to add), is what the indexer asked for.
	if xi, ok := ix.(IndexExtractor); ok && pd.s == m.s {
		err = xi.AddExtracted(num, pd.x)
	} else {
		err = ix.Add(num, indexedDoc(&pd.p.Document, pd.id, pd.owner))
	}
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return nil
}

// indexedDoc is what an Indexer sees of d, whose content id is id,
// owned by owner.
func indexedDoc(d *canon.Document, id canon.ContentID, owner string) IndexInput {
	return IndexInput{Kind: d.Kind, Owner: owner, Score: scoreOf(d.Signals),
		CandidateID: candidateID(d.NaturalKey, id), Canonical: d.Canonical, View: d.View}
}

// existing looks for the same content under the same owner.
func (m *mutation) existing(id canon.ContentID, d *canon.Document, owner string) (Ref, bool, error) {
	v, found, err := m.w.get(AppendIDKey(nil, id, owner, d.NaturalKey), nil)
	if err != nil || !found {
		return Ref{}, false, err
	}
	num := binary.BigEndian.Uint32(v)
	rec, err := m.record(num)
	if err != nil {
		return Ref{}, false, err
	}
	if rec.kind != d.Kind {
		return Ref{}, false, &ConflictError{Existing: id.String(), Incoming: id.String(),
			Reason: fmt.Sprintf("this content is already stored as kind %s, not %s", rec.kind, d.Kind)}
	}
	if string(rec.signals) != string(encodeSignals(d.Signals)) {
		return Ref{}, false, &ConflictError{Existing: id.String(), Incoming: id.String(),
			Reason: fmt.Sprintf("%s %q is already stored with other score, cost or quality signals; delete it first to replace them",
				d.Kind, d.NaturalKey)}
	}
	return rec.ref(num), true, nil
}

func (m *mutation) checkNaturalKey(id canon.ContentID, d *canon.Document, owner string) error {
	m.buf = AppendNaturalKey(m.buf[:0], d.Kind, owner, d.NaturalKey)
	v, found, err := m.w.get(m.buf, m.val[:0])
	if found {
		m.val = v
	}
	if err != nil || !found {
		return err
	}
	rec, err := m.record(binary.BigEndian.Uint32(v))
	if err != nil {
		return err
	}
	return &ConflictError{Kind: string(d.Kind), NaturalKey: d.NaturalKey, Existing: rec.id.String(), Incoming: id.String()}
}

func (m *mutation) record(num uint32) (record, error) {
	rec, found, err := readRecord(m.w.get, num)
	if err == nil && !found {
		err = fmt.Errorf("%w: document %d is referenced but has no record", ErrCorrupt, num)
	}
	return rec, err
}

// setRecord writes document num's record and body, and its column entry
// (columns.go), published when the mutation commits: the one place a
// document's record is encoded, so every writer lays documents out alike.
// It counts a reference to the content of rec.id and sets rec.blob: num
// itself when the content is new, whose body then goes inline in the
// record (one point read for both); else the number of the document that
// stored it first, whose body then lives in the shared 'B' blob, written
// when the content gains its second reference. blob and n are what refs
// read for rec.id before this document.
func (m *mutation) setRecord(num uint32, rec *record, canonical []byte, blob uint32, n uint64) error {
	// The score as a reader decodes it from the record, which may write
	// a number otherwise than it was given.
	sig, err := rec.decodeSignals()
	if err != nil {
		return err
	}
	rec.blob, rec.inline = blob, nil
	if n == 0 {
		rec.blob = num
	}
	// The body is encoded once, straight after the record's head in the
	// mutation's scratch buffer, which the sink copies.
	v := rec.appendHead(m.rec[:0], num)
	head := len(v)
	switch {
	case n == 0:
		v = encodeBlob(v, canonical, m.s.opts.BlobCompression)
		rec.inline = v[head:]
	case n == 1:
		// Idempotent when the blob is there already: the content was
		// shared before and lost all but one of its documents since.
		m.val = encodeBlob(m.val[:0], canonical, m.s.opts.BlobCompression)
		_ = m.w.set(AppendBlobKey(m.buf[:0], blob), m.val)
	}
	m.rec = v
	m.buf = AppendDocKey(m.buf[:0], num)
	_ = m.w.setRecord(m.buf, v, head)
	col := columnOf(num, rec, scoreOf(sig))
	m.buf, m.val = AppendColumnKey(m.buf[:0], num), appendColumn(m.val[:0], &col)
	_ = m.w.set(m.buf, m.val)
	m.cols = append(m.cols, col)
	m.buf, m.val = AppendRefsKey(m.buf[:0], rec.id), appendRefs(m.val[:0], rec.blob, n+1)
	return m.w.set(m.buf, m.val)
}

// refsUnlessAbsent is refs, without the read when probe found no
// reference count of id and the mutation wrote none.
func (m *mutation) refsUnlessAbsent(id canon.ContentID) (uint32, uint64, error) {
	if m.knownAbsent(absentRefs, AppendRefsKey(m.buf[:0], id)) {
		return 0, 0, nil
	}
	return m.refs(id)
}

// knownAbsent reports whether key, of the kind what, is known absent
// without a read: probe found it absent in the committed store, no write
// came since (commitPuts checked), and this mutation has not written it.
func (m *mutation) knownAbsent(what absentKeys, key []byte) bool {
	if m.mine == nil || m.absent&what == 0 {
		return false
	}
	_, wrote := m.mine[string(key)]
	return !wrote
}

// refs returns the blob number of id and its reference count, 0 when the
// content is not stored.
func (m *mutation) refs(id canon.ContentID) (uint32, uint64, error) {
	m.buf = AppendRefsKey(m.buf[:0], id)
	v, found, err := m.w.get(m.buf, m.val[:0])
	if found {
		m.val = v
	}
	if err != nil || !found {
		return 0, 0, err
	}
	blob, n, ok := decodeRefs(v)
	if !ok {
		return 0, 0, fmt.Errorf("%w: reference count of %s", ErrCorrupt, id)
	}
	return blob, n, nil
}

// appendReceipt chains r after the mutation's head and writes it.
func (m *mutation) appendReceipt(r Receipt) {
	r = m.head.next(r)
	m.rcpt = r.appendJSON(m.rcpt[:0])
	m.buf = AppendReceiptKey(m.buf[:0], r.Seq)
	_ = m.w.set(m.buf, m.rcpt)
	m.head = chainHead{seq: r.Seq, hash: sha256.Sum256(m.rcpt)}
}

// Check returns the error Put would return for the parsed document d under
// owner, without writing anything: nil, or a *ConflictError with a stored
// document. Bulk importers check every document before committing any.
func (s *Store) Check(d *canon.Document, owner string) error {
	if err := checkOwner(owner); err != nil {
		return err
	}
	b := s.kv.newBatch()
	m := &mutation{s: s, b: b, w: b}
	defer m.b.close()
	id := d.ID()
	if _, found, err := m.existing(id, d, owner); found || err != nil {
		return err
	}
	if d.NaturalKey != "" {
		return m.checkNaturalKey(id, d, owner)
	}
	return nil
}

// Limits returns the document limits the store applies.
func (s *Store) Limits() canon.Limits { return s.opts.Limits }

// docSink is where a mutation reads and writes the keys of the documents
// it puts: its Pebble batch, or a Loader's run over the committed store.
type docSink interface {
	get(key, dst []byte) ([]byte, bool, error)
	set(key, value []byte) error
	// setRecord writes a document's record, whose inline body starts
	// head bytes in, so that a sink keeping records without their bodies
	// needs no decoding.
	setRecord(key, value []byte, head int) error
}
