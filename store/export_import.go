package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

// OpImport is the Op of a migration receipt: the receipt Import appends
// after the documents of an export. Its HashBefore is the sha256 of the
// last receipt the export carried (its position in the source chain, ""
// when it carried none), its HashAfter the digest the caller gives for the
// export itself (Migration.ExportDigest), Num is 0 and Kind is empty.
const OpImport = "import"

// importBatch is how many documents one PutBatch of an import commits.
const importBatch = 1000

// zeroHash is the Prev of the first receipt of a chain.
var zeroHash = strings.Repeat("0", 2*sha256.Size)

// Migration describes where an import comes from, for its receipt.
type Migration struct {
	// ExportDigest is the lowercase hex sha256 of the export as the caller
	// received it (e.g. of its signed RFC 8785 bytes).
	ExportDigest string
}

// ImportReport says what Import stored.
type ImportReport struct {
	Refs    []Ref  // the imported documents, in the export's order
	Receipt uint64 // seq of the migration receipt in the owner chain
}

// VerifyExport checks an export on its own: its receipts are the owner
// chain from seq 1, each canonical, owned by the export's owner, numbered
// without gaps and linked by Prev to its predecessor; replaying them
// yields exactly the exported documents; every document hashes to its id.
// Errors wrap ErrBadExport and name the receipt or document at fault.
func VerifyExport(e *Export) error {
	if e == nil {
		return badExport("no export (nil)")
	}
	if err := verifyExportChain(e); err != nil {
		return err
	}
	live, err := replayExport(e)
	if err != nil {
		return err
	}
	return verifyExportDocs(e, live)
}

func badExport(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadExport, fmt.Sprintf(format, args...))
}

// verifyExportChain checks each receipt's form, owner, order and link.
func verifyExportChain(e *Export) error {
	prev := zeroHash
	for i := range e.Receipts {
		r := &e.Receipts[i]
		want := uint64(i) + 1
		switch {
		case !bytes.Equal(r.appendJSON(nil), r.Bytes):
			return badExport("receipt %d: bytes are not the receipt's canonical form", want)
		case r.Seq != want:
			return badExport("receipt %d: seq is %d; an owner chain counts 1, 2, 3, … without gaps", want, r.Seq)
		case r.Owner != e.Owner:
			return badExport("receipt %d: owner %q is not the export's owner %q", r.Seq, r.Owner, e.Owner)
		case r.Prev != prev:
			return badExport("receipt %d: prev %s is not the hash of receipt %d", r.Seq, r.Prev, r.Seq-1)
		}
		prev = hashHex(r.Bytes)
	}
	return nil
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// replayExport applies the receipts in order and returns the live
// documents they leave: the seq of the put that stored each → content id.
func replayExport(e *Export) (map[uint64]string, error) {
	live := map[uint64]string{}
	for _, r := range e.Receipts {
		switch r.Op {
		case "put":
			if r.Doc != r.Seq {
				return nil, badExport("receipt %d puts document %d; a put's doc is its own seq", r.Seq, r.Doc)
			}
			live[r.Doc] = r.HashAfter
		case "delete":
			if got, ok := live[r.Doc]; !ok || got != r.HashBefore {
				return nil, badExport("receipt %d deletes document %d (%s), which the receipts never put", r.Seq, r.Doc, r.HashBefore)
			}
			delete(live, r.Doc)
		case OpGrant, OpRevoke:
			if got, ok := live[r.Doc]; !ok || got != r.HashBefore || r.HashAfter != r.HashBefore || r.Grantee == "" {
				return nil, badExport("receipt %d: a %s of document %d (%s), which is not live with that content, or names no grantee",
					r.Seq, r.Op, r.Doc, r.HashBefore)
			}
		case OpImport:
			if r.Doc != 0 {
				return nil, badExport("receipt %d: an import names no document, doc must be 0", r.Seq)
			}
		default:
			return nil, badExport("receipt %d: unknown op %q", r.Seq, r.Op)
		}
	}
	return live, nil
}

// verifyExportDocs checks that the documents are exactly the live ones,
// each hashing to its id and stored by a put receipt of its kind.
func verifyExportDocs(e *Export, live map[uint64]string) error {
	for _, d := range e.Documents {
		if canon.Sum(d.Body) != d.ID {
			return badExport("document %d: body hashes to %s, not its id %s", d.Seq, canon.Sum(d.Body), d.ID)
		}
		if live[d.Seq] != d.ID.String() {
			return badExport("document %d (%s) is not live according to the receipts", d.Seq, d.ID)
		}
		if r := e.Receipts[d.Seq-1]; r.Kind != d.Kind {
			return badExport("document %d: receipt %d put it as a %s, not a %s", d.Seq, d.Seq, r.Kind, d.Kind)
		}
		delete(live, d.Seq)
	}
	if len(live) > 0 {
		seq := slices.Min(slices.Collect(maps.Keys(live)))
		return badExport("document %d (%s) is live according to the receipts but missing", seq, live[seq])
	}
	return nil
}

// Import verifies e (VerifyExport) and stores its documents under owner,
// in batches of importBatch, or, when there are more and none is a
// message kind, in one bulk load (Loader) that stores all or none of
// them; then it appends a migration receipt (OpImport) naming the export. Documents already stored identically are kept, so an
// import cut short is finished by running it again; a natural key owner
// already uses for other content is a *ConflictError and stops the import.
// The documents and the migration receipt are separate commits.
func (s *Store) Import(ctx context.Context, e *Export, owner string, mig Migration) (*ImportReport, error) {
	if err := VerifyExport(e); err != nil {
		return nil, err
	}
	if err := checkOwner(owner); err != nil {
		return nil, err
	}
	docs, err := importDocuments(e, owner, &s.opts.Limits)
	if err != nil {
		return nil, err
	}
	rep := &ImportReport{Refs: make([]Ref, 0, len(docs))}
	if err := s.importDocs(ctx, docs, rep); err != nil {
		return rep, fmt.Errorf("store: import: %w", err)
	}
	seq, err := s.appendMigration(ctx, migrationReceipt(e, owner, mig))
	if err != nil {
		return rep, err
	}
	chain, err := s.ownerChainTo(ctx, owner, seq)
	if err != nil {
		return rep, fmt.Errorf("store: import: migration receipt %d committed, but reading the owner chain: %w", seq, err)
	}
	rep.Receipt = uint64(len(chain.receipts))
	return rep, nil
}

// importDocs stores docs: in one bulk load (Loader) when none is a
// message kind and the store's indexer can load in bulk, so that a large
// import is ingested whole or not at all; else in batches of importBatch,
// which keep the message rules.
func (s *Store) importDocs(ctx context.Context, docs []Document, rep *ImportReport) error {
	_, extracts := s.opts.Indexer.(IndexExtractor)
	bulk := len(docs) > importBatch && (s.opts.Indexer == nil || extracts)
	for _, d := range docs {
		if p := d.Parsed; p.AIDP != nil || p.PAIRL != nil || p.Exec != nil {
			bulk = false
		}
	}
	if !bulk {
		for start := 0; start < len(docs); start += importBatch {
			refs, err := s.PutBatch(ctx, docs[start:min(start+importBatch, len(docs))])
			if err != nil {
				return err
			}
			rep.Refs = append(rep.Refs, refs...)
		}
		return nil
	}
	prep, err := s.PrepareAll(ctx, docs)
	if err != nil {
		return err
	}
	l, err := s.NewLoader(ctx, nil)
	if err != nil {
		return err
	}
	defer l.Abort()
	refs := make([]Ref, len(prep))
	for i, pd := range prep {
		if refs[i], err = l.Add(pd); err != nil {
			return &BatchError{Index: i, Err: err}
		}
	}
	if err := l.Commit(); err != nil {
		return err
	}
	rep.Refs = append(rep.Refs, refs...)
	return nil
}

// importDocuments turns the exported documents into what PutBatch takes,
// checking that each parses back to its id and natural key.
func importDocuments(e *Export, owner string, lim *canon.Limits) ([]Document, error) {
	docs := make([]Document, len(e.Documents))
	for i, d := range e.Documents {
		body := d.Body
		if d.Kind == canon.KindCandidate {
			body = candidateShape(d.NaturalKey, d.Body)
		}
		p, err := ParseDocument(body, d.Kind, lim, &MessageOptions{AllowUnsignedObservations: true})
		if err != nil {
			return nil, badExport("document %d: %v", d.Seq, err)
		}
		if p.ID() != d.ID || p.NaturalKey != d.NaturalKey {
			return nil, badExport("document %d: parses to %s key %q, not %s key %q", d.Seq, p.ID(), p.NaturalKey, d.ID, d.NaturalKey)
		}
		docs[i] = Document{Parsed: p, Owner: owner, Signals: d.Signals, Unbound: QuarantineUnbound}
	}
	return docs, nil
}

// candidateShape rebuilds the {id, record} form a candidate is put in; its
// signals travel beside it (Document.Signals).
func candidateShape(id string, record []byte) []byte {
	b := append([]byte(`{"id":`), canon.AppendValue(nil, id)...)
	b = append(append(b, `,"record":`...), record...)
	return append(b, '}')
}

func migrationReceipt(e *Export, owner string, mig Migration) Receipt {
	r := Receipt{Op: OpImport, Owner: owner, HashAfter: mig.ExportDigest}
	if n := len(e.Receipts); n > 0 {
		r.HashBefore = hashHex(e.Receipts[n-1].Bytes)
	}
	return r
}

// appendMigration commits r, chained after the head, as a mutation of its
// own, and returns its seq.
func (s *Store) appendMigration(ctx context.Context, r Receipt) (uint64, error) {
	s.mu.Lock()
	if err := s.checkOpen(); err != nil {
		s.mu.Unlock()
		return 0, err
	}
	m := s.newMutation(ctx)
	r.Principal = m.principal
	m.appendReceipt(r)
	seq := m.head.seq
	if err := m.finish(); err != nil {
		return 0, err
	}
	return seq, nil
}
