package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// handleImport answers POST /storage/import (the RFC 0023 import
// operation): an export document (GET /storage/export of this or another
// aqlstore) whose signature verifies under its exporter_did (a did:key;
// with trusted_exporters in the auth file, one of those), whose receipt
// chain and documents verify (store.VerifyExport), and whose owner is the
// caller's tenant. Its documents are stored under that tenant and a
// migration receipt naming the export's sha256 is appended. 200 reports
// what was stored; 422 says why an export does not verify; 409 a natural
// key the tenant already uses for other content.
func (s *Server) handleImport(w http.ResponseWriter, r *http.Request) {
	c, ok := s.requireTenant(w, r)
	if !ok {
		return
	}
	doc, digest, release, p := s.readExport(w, r)
	defer release() // until the import is written
	if p == nil {
		p = s.checkExport(doc, c)
	}
	if p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	e, err := store.DecodeExport(doc)
	if err != nil {
		s.writeProblem(w, r, badExport("the export is malformed at "+err.Error()))
		return
	}
	rep, err := s.cfg.Store.Import(store.WithPrincipal(r.Context(), c.tenant), e, e.Owner, store.Migration{ExportDigest: digest})
	if err != nil {
		s.importFailed(w, r, err)
		return
	}
	s.writeSigned(w, http.StatusOK, contentJSON, map[string]any{"owner": e.Owner, "exporter_did": doc["exporter_did"],
		"export_digest": digest, "imported": seqNumber(uint64(len(rep.Refs))), "migration_receipt": seqNumber(rep.Receipt)})
}

func badExport(detail string) problem {
	return problem{status: http.StatusUnprocessableEntity, code: "bad_export", title: "Export does not verify", detail: detail}
}

// readExport reads and decodes the body; digest is the sha256 of its RFC
// 8785 form, which the migration receipt names.
// The body counts against the write gate (readWriteBody) until release.
func (s *Server) readExport(w http.ResponseWriter, r *http.Request) (map[string]any, string, func(), *problem) {
	if p := checkMedia(r, contentJSON); p != nil {
		return nil, "", func() {}, p
	}
	body, release, p := s.readWriteBody(w, r, s.cfg.MaxImportBytes)
	if p != nil {
		return nil, "", release, p
	}
	v, err := canon.Decode(body, s.exportLimits())
	doc, ok := v.(map[string]any)
	if err != nil || !ok {
		p := badRequest("invalid_json", "the body is not a JSON object: "+errString(err))
		return nil, "", release, &p
	}
	sum := sha256.Sum256(canon.AppendValue(nil, doc))
	return doc, hex.EncodeToString(sum[:]), release, nil
}

// checkExport verifies the signature and that the caller may import it.
func (s *Server) checkExport(doc map[string]any, c caller) *problem {
	exporter, _ := doc["exporter_did"].(string)
	if !strings.HasPrefix(exporter, "did:key:") {
		p := badExport("exporter_did must be the exporting resolver's did:key")
		return &p
	}
	pub, err := sign.ParseDIDKey(exporter)
	if err == nil {
		err = sign.Verify(doc, pub)
	}
	if err != nil {
		p := badExport("the export's signature does not verify under its exporter_did: " + err.Error())
		return &p
	}
	if !s.cfg.Auth.TrustsExporter(exporter) {
		p := forbidden("exports signed by " + exporter + " are not trusted here (trusted_exporters in the auth file)")
		return &p
	}
	owner, _ := doc["owner"].(string)
	if owner != c.tenant && !(owner == store.Public && s.cfg.Auth.PublicWriter(c.tenant)) {
		p := forbidden("this export belongs to " + owner + "; a tenant imports its own exports only")
		return &p
	}
	return nil
}

func (s *Server) importFailed(w http.ResponseWriter, r *http.Request, err error) {
	var ce *store.ConflictError
	switch {
	case errors.Is(err, store.ErrBadExport):
		s.writeProblem(w, r, badExport(err.Error()))
	case errors.As(err, &ce):
		s.writeProblem(w, r, conflict(ce.Error()+"; documents before it were imported, none after"))
	default:
		s.cfg.Logger.Error("import", "err", err)
		s.writeProblem(w, r, storeFailure(err))
	}
}

func errString(err error) string {
	if err == nil {
		return "it is another JSON value"
	}
	return err.Error()
}
