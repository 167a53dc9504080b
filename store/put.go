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
	Body    []byte         // JSON in any formatting, or PAIRL text; canonicalized by Put
	Kind    canon.Kind     // "" detects the kind (ParseDocument)
	Owner   string         // "" means the context's principal
	Signals *canon.Signals // optional; overrides signals given in the candidate shape
	// Parsed, when set, is the document already parsed (by ParseDocument
	// or Store.Parse); Body and Kind are then ignored, so nothing is
	// parsed twice.
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
func (s *Store) PutBatch(ctx context.Context, docs []Document) ([]Ref, error) {
	parsed := make([]*Parsed, len(docs))
	owners := make([]string, len(docs))
	for i, d := range docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := d.Parsed
		if p == nil {
			var err error
			if p, err = s.Parse(d.Body, d.Kind); err != nil {
				return nil, &BatchError{Index: i, Err: err}
			}
		}
		if d.Signals != nil {
			c := *p
			c.Signals = d.Signals
			p = &c
		}
		owners[i] = d.Owner
		if owners[i] == "" {
			owners[i] = Principal(ctx)
		}
		if err := checkOwner(owners[i]); err != nil {
			return nil, &BatchError{Index: i, Err: err}
		}
		parsed[i] = p
	}
	return s.commitPuts(ctx, parsed, owners, docs)
}

// commitPuts writes parsed documents in one batch under the writer lock and
// waits for the fsync outside it.
func (s *Store) commitPuts(ctx context.Context, docs []*Parsed, owners []string, in []Document) ([]Ref, error) {
	s.mu.Lock()
	if err := s.checkOpen(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	m := s.newMutation(ctx)
	refs := make([]Ref, len(docs))
	for i, d := range docs {
		ref, err := m.put(d, owners[i], in[i].Unbound)
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
	principal string
	nextNum   uint32
	head      chainHead
	buf       []byte
	dry       bool       // a DryRun: never indexed, never committed
	cols      []column   // column entries set or cleared, published by finish
	threads   pairlCache // PAIRL messages read or written by the mutation
}

func (s *Store) newMutation(ctx context.Context) *mutation {
	return &mutation{s: s, b: s.kv.newBatch(), principal: Principal(ctx), nextNum: s.nextNum, head: s.head}
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
	err := s.kv.apply(m.b, !s.opts.NoSync)
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
func (m *mutation) put(p *Parsed, owner string, unbound UnboundPolicy) (Ref, error) {
	d := &p.Document
	id := d.ID()
	if ref, found, err := m.existing(id, d, owner); found || err != nil {
		return ref, err
	}
	if d.NaturalKey != "" {
		if err := m.checkNaturalKey(id, d, owner); err != nil {
			return Ref{}, replayOf(p, err)
		}
	}
	msg, err := m.checkMessage(p, owner, unbound)
	if err != nil {
		return Ref{}, err
	}
	if m.nextNum == 0 {
		return Ref{}, fmt.Errorf("%w: the store has used every document number", ErrInvalid)
	}
	num := m.nextNum
	m.nextNum++
	r := Receipt{Principal: m.principal, Op: "put", Kind: d.Kind, Owner: owner, Num: num, HashAfter: id.String()}
	rec := record{id: id, kind: d.Kind, owner: owner, naturalKey: d.NaturalKey,
		signals: encodeSignals(d.Signals), seq: m.head.seq + 1}
	if err := m.setRecord(num, &rec, d.Canonical); err != nil {
		return Ref{}, err
	}
	b := m.b
	_ = b.set(AppendIDKey(nil, id, owner, d.NaturalKey), binary.BigEndian.AppendUint32(nil, num))
	if d.NaturalKey != "" {
		_ = b.set(AppendNaturalKey(nil, d.Kind, owner, d.NaturalKey), binary.BigEndian.AppendUint32(nil, num))
	}
	_ = b.set(AppendKindKey(nil, d.Kind, num), nil)
	if err := m.writeMessage(num, p, owner, msg); err != nil {
		return Ref{}, err
	}
	if ix := m.s.opts.Indexer; ix != nil && !m.dry {
		if err := ix.Add(num, IndexedDoc{Kind: d.Kind, Owner: owner, Score: scoreOf(d.Signals),
			CandidateID: candidateID(d.NaturalKey, id), Canonical: d.Canonical, View: d.View}); err != nil {
			return Ref{}, fmt.Errorf("index: %w", err)
		}
	}
	m.appendReceipt(r)
	ref := rec.ref(num)
	ref.Created = true
	return ref, nil
}

// existing looks for the same content under the same owner.
func (m *mutation) existing(id canon.ContentID, d *canon.Document, owner string) (Ref, bool, error) {
	v, found, err := m.b.get(AppendIDKey(nil, id, owner, d.NaturalKey), nil)
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
	v, found, err := m.b.get(AppendNaturalKey(nil, d.Kind, owner, d.NaturalKey), nil)
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
	rec, found, err := readRecord(m.b.get, num)
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
// when the content gains its second reference.
func (m *mutation) setRecord(num uint32, rec *record, canonical []byte) error {
	blob, n, err := m.refs(rec.id)
	if err != nil {
		return err
	}
	// The score as a reader decodes it from the record, which may write
	// a number otherwise than it was given.
	sig, err := rec.decodeSignals()
	if err != nil {
		return err
	}
	rec.blob, rec.inline = blob, nil
	switch {
	case n == 0:
		rec.blob = num
		rec.inline = encodeBlob(nil, canonical, m.s.opts.BlobCompression)
	case n == 1:
		// Idempotent when the blob is there already: the content was
		// shared before and lost all but one of its documents since.
		_ = m.b.set(AppendBlobKey(nil, blob), encodeBlob(nil, canonical, m.s.opts.BlobCompression))
	}
	_ = m.b.set(AppendDocKey(m.buf[:0], num), rec.append(nil, num))
	col := columnOf(num, rec, scoreOf(sig))
	_ = m.b.set(AppendColumnKey(nil, num), appendColumn(nil, &col))
	m.cols = append(m.cols, col)
	return m.b.set(AppendRefsKey(nil, rec.id), appendRefs(nil, rec.blob, n+1))
}

// refs returns the blob number of id and its reference count, 0 when the
// content is not stored.
func (m *mutation) refs(id canon.ContentID) (uint32, uint64, error) {
	v, found, err := m.b.get(AppendRefsKey(nil, id), nil)
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
	body := r.appendJSON(nil)
	_ = m.b.set(AppendReceiptKey(nil, r.Seq), body)
	m.head = chainHead{seq: r.Seq, hash: sha256.Sum256(body)}
}

// Check returns the error Put would return for the parsed document d under
// owner, without writing anything: nil, or a *ConflictError with a stored
// document. Bulk importers check every document before committing any.
func (s *Store) Check(d *canon.Document, owner string) error {
	if err := checkOwner(owner); err != nil {
		return err
	}
	m := &mutation{s: s, b: s.kv.newBatch()}
	defer m.b.close()
	if _, found, err := m.existing(d.ID(), d, owner); found || err != nil {
		return err
	}
	if d.NaturalKey != "" {
		return m.checkNaturalKey(d.ID(), d, owner)
	}
	return nil
}

// Limits returns the document limits the store applies.
func (s *Store) Limits() canon.Limits { return s.opts.Limits }
