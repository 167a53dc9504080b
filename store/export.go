package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/aqlstore/aqlstore/canon"
)

// An export is one tenant's complete records and the receipts of every
// mutation of its documents, read at one instant of the chain. It carries
// no other tenant's documents or receipts: the receipts of other owners are
// left out, so the chain it carries has gaps wherever another tenant
// mutated the store (the receipts' seq numbers, which their hashes cover,
// still show where those gaps are). VerifyExport checks an export on its
// own; Import appends one to another store. Signing an export is the
// caller's business (the server signs it over RFC 8785).

// maxExportRetries bounds how often Export re-reads when writers keep
// moving the chain while it reads.
const maxExportRetries = 8

// ExportedDocument is one live document of an export.
type ExportedDocument struct {
	Num        uint32          // the document's number in the exporting store
	ID         canon.ContentID // sha256 of Body
	Kind       canon.Kind
	NaturalKey string         // "" when the kind has none
	Body       []byte         // canonical bytes
	Signals    *canon.Signals // nil when none
	Seq        uint64         // the receipt that stored it
}

// ExportedReceipt is one receipt of an export with the bytes it was
// stored as; those bytes are what the next receipt's Prev hashes.
type ExportedReceipt struct {
	Receipt
	Bytes []byte // RFC 8785 bytes
}

// Export is a tenant's records and receipts. Its slices belong to the
// caller.
type Export struct {
	Owner     string
	Head      uint64 // the chain's head when the export was read
	Documents []ExportedDocument
	Receipts  []ExportedReceipt // in seq order
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

// readExport reads owner's documents and the receipts up to head.
func (s *Store) readExport(ctx context.Context, owner string, head uint64) (*Export, error) {
	e := &Export{Owner: owner, Head: head}
	err := s.read(func(v *view, bs *bodies) error {
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
			e.Documents = append(e.Documents, ExportedDocument{Num: num, ID: rec.id, Kind: rec.kind,
				NaturalKey: rec.naturalKey, Body: body, Signals: sig, Seq: rec.seq})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: export documents: %w", err)
	}
	err = s.Receipts(ctx, 1, func(r *Receipt) error {
		if r.Seq > head || r.Owner != owner {
			return nil
		}
		e.Receipts = append(e.Receipts, ExportedReceipt{Receipt: *r, Bytes: r.appendJSON(nil)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: export receipts: %w", err)
	}
	return e, nil
}

// ExportReceipt decodes a receipt's RFC 8785 bytes, as an export carries
// them, and refuses bytes that are not the receipt's canonical form.
func ExportReceipt(b []byte) (ExportedReceipt, error) {
	r, err := parseReceipt(b)
	if err != nil {
		return ExportedReceipt{}, err
	}
	if canonical := r.appendJSON(nil); !slices.Equal(canonical, b) {
		return ExportedReceipt{}, fmt.Errorf("%w: receipt %d is not in its canonical form", ErrInvalid, r.Seq)
	}
	return ExportedReceipt{Receipt: *r, Bytes: b}, nil
}
