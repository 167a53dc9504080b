package store

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

// exportVersion is the version of the export document's form.
const exportVersion = "1"

// The export document, signed over RFC 8785 by the exporting resolver:
//
//	{"export_version": "1", "owner": DID, "exporter_did": did:key, "exported_at": RFC 3339,
//	 "documents": [{"id", "kind", "natural_key"?, "seq", "body" | "body_base64", "signals"?}],
//	 "receipts":  [receipt, …],   // the owner chain (OwnerReceipt), from seq 1
//	 "signature": {…}}
//
// A document's seq is that of the owner receipt that put it. Nothing in an
// export counts another tenant's documents or mutations.
//
// A body is the document's JSON value (its canonical bytes decoded);
// bytes that are not JSON travel as body_base64.

// EncodeExport builds the unsigned export document of e, exported by the
// resolver exporter at at; the caller signs it.
func EncodeExport(e *Export, exporter string, at time.Time) (map[string]any, error) {
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

func exportedDocDoc(d *ExportedDocument) map[string]any {
	m := map[string]any{"id": d.ID.String(), "kind": string(d.Kind), "seq": canon.Number(strconv.FormatUint(d.Seq, 10))}
	if d.NaturalKey != "" {
		m["natural_key"] = d.NaturalKey
	}
	lim := canon.Limits{MaxBytes: len(d.Body) + 1, MaxDepth: 1 << 20, MaxMembers: 1 << 30}.WithoutPathLimits()
	if v, err := canon.Decode(d.Body, &lim); err == nil {
		m["body"] = v
	} else {
		m["body_base64"] = base64.RawURLEncoding.EncodeToString(d.Body)
	}
	if d.Signals != nil {
		m["signals"] = d.Signals.Value()
	}
	return m
}

// DecodeExport reads an export document whose signature the caller has
// checked. Errors start with the JSON Pointer of the member at fault.
func DecodeExport(doc map[string]any) (*Export, error) {
	if v, _ := doc["export_version"].(string); v != exportVersion {
		return nil, fmt.Errorf("/export_version: want %q", exportVersion)
	}
	owner, _ := doc["owner"].(string)
	if owner == "" {
		return nil, fmt.Errorf("/owner: want the exporting tenant's DID")
	}
	e := &Export{Owner: owner}
	docs, ok := doc["documents"].([]any)
	if !ok {
		return nil, fmt.Errorf("/documents: want an array")
	}
	for i, d := range docs {
		ed, err := decodeExportedDoc(d)
		if err != nil {
			return nil, fmt.Errorf("/documents/%d%w", i, err)
		}
		e.Documents = append(e.Documents, ed)
	}
	return e, decodeReceipts(e, doc["receipts"])
}

func decodeReceipts(e *Export, v any) error {
	receipts, ok := v.([]any)
	if !ok {
		return fmt.Errorf("/receipts: want an array")
	}
	for i, r := range receipts {
		er, err := ExportReceipt(canon.AppendValue(nil, r))
		if err != nil {
			return fmt.Errorf("/receipts/%d: %w", i, err)
		}
		e.Receipts = append(e.Receipts, er)
	}
	return nil
}

// decodeExportedDoc reads one documents entry; errors start with the
// member's pointer below the entry.
func decodeExportedDoc(v any) (ExportedDocument, error) {
	var d ExportedDocument
	m, ok := v.(map[string]any)
	if !ok {
		return d, fmt.Errorf(": want an object")
	}
	seq, err := strconv.ParseUint(string(asNumber(m["seq"])), 10, 64)
	if err != nil {
		return d, fmt.Errorf("/seq: want a whole number, the owner receipt that put the document")
	}
	id, _ := m["id"].(string)
	cid, err := canon.ParseContentID(id)
	if err != nil {
		return d, fmt.Errorf("/id: %v", err)
	}
	kind, _ := m["kind"].(string)
	d = ExportedDocument{Seq: seq, ID: cid, Kind: canon.Kind(kind)}
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
		return nil, fmt.Errorf("/body: missing")
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
		return nil, fmt.Errorf("/signals: want an object")
	}
	s, err := canon.ParseSignals(sm)
	if err != nil {
		return nil, fmt.Errorf("/signals: %v", err)
	}
	return s, nil
}

func asNumber(v any) canon.Number { n, _ := v.(canon.Number); return n }
