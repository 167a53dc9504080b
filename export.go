package aqlstore

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

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

// exportVersion is the version of the export document's form.
const exportVersion = "1"

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
	doc, err := exportDoc(e, signer.DID(), db.opts.Now())
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
	e, err := decodeExport(doc)
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

// exportDoc builds the unsigned export document of e.
func exportDoc(e *store.Export, exporter string, at time.Time) (map[string]any, error) {
	docs := make([]any, len(e.Documents))
	for i := range e.Documents {
		docs[i] = exportedDocDoc(&e.Documents[i])
	}
	receipts := make([]any, len(e.Receipts))
	for i, r := range e.Receipts {
		v, err := canon.Decode(r.Bytes, nil)
		if err != nil {
			return nil, fmt.Errorf("receipt %d: %w", r.Seq, err)
		}
		receipts[i] = v
	}
	return map[string]any{"export_version": exportVersion, "owner": e.Owner, "exporter_did": exporter,
		"exported_at": at.UTC().Format(time.RFC3339Nano), "documents": docs, "receipts": receipts}, nil
}

func exportedDocDoc(d *store.ExportedDocument) map[string]any {
	m := map[string]any{"id": d.ID.String(), "kind": string(d.Kind), "seq": canon.Number(strconv.FormatUint(d.Seq, 10))}
	if d.NaturalKey != "" {
		m["natural_key"] = d.NaturalKey
	}
	if v, err := canon.Decode(d.Body, &canon.Limits{MaxBytes: len(d.Body) + 1, MaxDepth: 1 << 20, MaxMembers: 1 << 30}); err == nil {
		m["body"] = v
	} else {
		m["body_base64"] = base64.RawURLEncoding.EncodeToString(d.Body)
	}
	if d.Signals != nil {
		m["signals"] = d.Signals.Value()
	}
	return m
}

// decodeExport reads an export document whose signature verified. Errors
// start with the JSON Pointer of the member at fault.
func decodeExport(doc map[string]any) (*store.Export, error) {
	if v, _ := doc["export_version"].(string); v != exportVersion {
		return nil, fmt.Errorf("/export_version: want %q", exportVersion)
	}
	owner, _ := doc["owner"].(string)
	if owner == "" {
		return nil, errors.New("/owner: want the exporting tenant's DID")
	}
	e := &store.Export{Owner: owner}
	docs, ok := doc["documents"].([]any)
	if !ok {
		return nil, errors.New("/documents: want an array")
	}
	for i, d := range docs {
		ed, err := decodeExportedDoc(d)
		if err != nil {
			return nil, fmt.Errorf("/documents/%d%w", i, err)
		}
		e.Documents = append(e.Documents, ed)
	}
	receipts, ok := doc["receipts"].([]any)
	if !ok {
		return nil, errors.New("/receipts: want an array")
	}
	for i, r := range receipts {
		er, err := store.ExportReceipt(canon.AppendValue(nil, r))
		if err != nil {
			return nil, fmt.Errorf("/receipts/%d: %w", i, err)
		}
		e.Receipts = append(e.Receipts, er)
	}
	return e, nil
}

// decodeExportedDoc reads one documents entry; errors start with the
// member's pointer below the entry.
func decodeExportedDoc(v any) (store.ExportedDocument, error) {
	var d store.ExportedDocument
	m, ok := v.(map[string]any)
	if !ok {
		return d, errors.New(": want an object")
	}
	n, _ := m["seq"].(canon.Number)
	seq, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil {
		return d, errors.New("/seq: want a whole number, the owner receipt that put the document")
	}
	id, _ := m["id"].(string)
	cid, err := canon.ParseContentID(id)
	if err != nil {
		return d, fmt.Errorf("/id: %v", err)
	}
	kind, _ := m["kind"].(string)
	d = store.ExportedDocument{Seq: seq, ID: cid, Kind: canon.Kind(kind)}
	d.NaturalKey, _ = m["natural_key"].(string)
	if d.Body, err = exportedBody(m); err != nil {
		return d, err
	}
	d.Signals, err = exportedSignals(m)
	return d, err
}

func exportedBody(m map[string]any) ([]byte, error) {
	if b64, ok := m["body_base64"].(string); ok {
		b, err := base64.RawURLEncoding.DecodeString(b64)
		if err != nil {
			return nil, fmt.Errorf("/body_base64: %v", err)
		}
		return b, nil
	}
	body, ok := m["body"]
	if !ok {
		return nil, errors.New("/body: missing")
	}
	return canon.AppendValue(nil, body), nil
}

func exportedSignals(m map[string]any) (*canon.Signals, error) {
	v, ok := m["signals"]
	if !ok {
		return nil, nil
	}
	sm, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("/signals: want an object")
	}
	s, err := canon.ParseSignals(sm)
	if err != nil {
		return nil, fmt.Errorf("/signals: %v", err)
	}
	return s, nil
}
