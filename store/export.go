package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aqlstore/aqlstore/canon"
)

// An export is one tenant's complete records and its owner chain (see
// owner_chain.go): the receipts of every mutation of its documents, read
// at one instant. It carries nothing of another tenant, not even a count:
// its receipts are numbered within the owner and link to each other, and
// its documents are named by the receipts that put them, not by the
// store's document numbers. VerifyExport checks an export on its own;
// Import appends one to another store. Signing an export is the caller's
// business (the server signs it over RFC 8785).

// maxExportRetries bounds how often Export re-reads when writers keep
// moving the chain while it reads.
const maxExportRetries = 8

// ExportedDocument is one live document of an export.
type ExportedDocument struct {
	ID         canon.ContentID // sha256 of Body
	Kind       canon.Kind
	NaturalKey string         // "" when the kind has none
	Body       []byte         // canonical bytes
	Signals    *canon.Signals // nil when none
	Seq        uint64         // the owner receipt that put it
}

// ExportedReceipt is one receipt of an owner chain with its RFC 8785
// bytes, which are what the next receipt's Prev hashes.
type ExportedReceipt struct {
	OwnerReceipt
	Bytes []byte
}

// Export is a tenant's records and owner chain. Its slices belong to the
// caller.
type Export struct {
	Owner     string
	Documents []ExportedDocument
	Receipts  []ExportedReceipt // the owner chain, from seq 1
}

// Export reads every document owned by owner and every receipt about
// them, consistently: if a mutation commits while Export reads, it reads
// again (a few times, then ErrBusy). It reads the whole receipt chain, so
// it takes time proportional to the store's history.
func (s *Store) Export(ctx context.Context, owner string) (*Export, error) {
	if err := checkOwner(owner); err != nil {
		return nil, err
	}
	for range maxExportRetries {
		before := s.Head()
		e, err := s.readExport(ctx, owner, before)
		if errors.Is(err, errExportMoved) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if s.Head() == before {
			return e, nil
		}
	}
	return nil, fmt.Errorf("%w: the store changed during %d export attempts; retry when writes are fewer",
		ErrBusy, maxExportRetries)
}

// errExportMoved means a document was put after the chain head an export
// read up to: it reads again.
var errExportMoved = errors.New("store: the chain moved during the export")

// readExport reads owner's documents and the receipts up to head.
func (s *Store) readExport(ctx context.Context, owner string, head uint64) (*Export, error) {
	chain, err := s.ownerChainTo(ctx, owner, head)
	if err != nil {
		return nil, fmt.Errorf("store: export receipts: %w", err)
	}
	e := &Export{Owner: owner, Receipts: chain.receipts}
	err = s.read(func(v *view, bs *bodies) error {
		return s.scanRecords(ctx, v, "", func(num uint32, rec *record) error {
			if rec.owner != owner {
				return nil
			}
			body, err := bs.body(num, rec)
			if err != nil {
				return err
			}
			sig, err := rec.decodeSignals()
			if err != nil {
				return err
			}
			seq, ok := chain.bySeq[rec.seq]
			switch {
			case !ok && rec.seq > head:
				return errExportMoved
			case !ok:
				return fmt.Errorf("%w: document %d: no receipt of %s put it", ErrCorrupt, num, owner)
			}
			e.Documents = append(e.Documents, ExportedDocument{ID: rec.id, Kind: rec.kind,
				NaturalKey: rec.naturalKey, Body: body, Signals: sig, Seq: seq})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: export documents: %w", err)
	}
	return e, nil
}

// ExportReceipt decodes an owner receipt's RFC 8785 bytes, as an export
// carries them, and refuses bytes that are not the receipt's canonical form.
func ExportReceipt(b []byte) (ExportedReceipt, error) {
	r, err := parseOwnerReceipt(b)
	if err != nil {
		return ExportedReceipt{}, err
	}
	if canonical := r.appendJSON(nil); !slices.Equal(canonical, b) {
		return ExportedReceipt{}, fmt.Errorf("%w: receipt %d is not in its canonical form", ErrInvalid, r.Seq)
	}
	return ExportedReceipt{OwnerReceipt: *r, Bytes: b}, nil
}
