package aqlstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// An export is one tenant's documents and owner chain (store.Export) as a
// JSON document signed by the exporting store's key over RFC 8785, the
// form GET /storage/export of the server sends and POST /storage/import
// takes:
//
//	{"export_version": "1", "owner": DID, "exporter_did": did:key, "exported_at": RFC 3339,
//	 "documents": [{"id", "kind", "natural_key"?, "seq", "body" | "body_base64", "signals"?}],
//	 "receipts":  [receipt, …],   // the owner chain (store.OwnerReceipt), from seq 1
//	 "signature": {…}}
//
// A document's seq is that of the owner receipt that put it; a body is the
// document's JSON value, and bytes that are not JSON (PAIRL text) travel
// as body_base64. Nothing in an export counts another tenant's documents
// or mutations.

// Export returns the signed export of every document the context's
// principal owns (public's, for a context without one), with their
// receipts.
func (db *DB) Export(ctx context.Context) ([]byte, error) {
	ctx, err := db.context(ctx)
	if err != nil {
		return nil, err
	}
	signer, err := db.signerFor()
	if err != nil {
		return nil, err
	}
	if err := db.enter(); err != nil {
		return nil, err
	}
	defer db.life.RUnlock()
	e, err := db.s.Export(ctx, store.Principal(ctx))
	if err != nil {
		return nil, err
	}
	doc, err := store.EncodeExport(e, signer.DID(), db.opts.Now())
	if err != nil {
		return nil, err
	}
	b, _, err := signer.AppendSigned(nil, doc)
	return b, err
}

// Import stores the documents of a signed export under its owner, who
// must be the context's principal, and appends a migration receipt naming
// the export's sha256. The signature must verify under the export's
// exporter_did (a did:key). Documents already stored identically are
// kept, so an import cut short is finished by running it again.
func (db *DB) Import(ctx context.Context, export []byte) (*ImportReport, error) {
	ctx, err := db.context(ctx)
	if err != nil {
		return nil, err
	}
	v, err := canon.Decode(export, &canon.Limits{MaxBytes: len(export) + 1, MaxDepth: canon.DefaultMaxDepth + 4,
		MaxMembers: 1 << 24})
	doc, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, fmt.Errorf("%w: not a JSON object: %v", ErrBadExport, errOrType(err, v))
	}
	if err := verifyExport(doc); err != nil {
		return nil, err
	}
	owner := store.Principal(ctx)
	if o, _ := doc["owner"].(string); o != owner {
		return nil, fmt.Errorf("%w: the export belongs to %s, not %s: import it as its owner", ErrBadExport, o, owner)
	}
	e, err := store.DecodeExport(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: at %v", ErrBadExport, err)
	}
	sum := sha256.Sum256(canon.AppendValue(nil, doc))
	if err := db.enter(); err != nil {
		return nil, err
	}
	defer db.life.RUnlock()
	return db.s.Import(ctx, e, owner, store.Migration{ExportDigest: hex.EncodeToString(sum[:])})
}

func errOrType(err error, v any) any {
	if err != nil {
		return err
	}
	return fmt.Sprintf("a %T", v)
}

// verifyExport checks the signature under the exporter's did:key.
func verifyExport(doc map[string]any) error {
	exporter, _ := doc["exporter_did"].(string)
	pub, err := sign.ParseDIDKey(exporter)
	if err == nil {
		err = sign.Verify(doc, pub)
	}
	if err != nil {
		return fmt.Errorf("%w: the signature does not verify under its exporter_did %q: %v", ErrBadExport, exporter, err)
	}
	return nil
}
