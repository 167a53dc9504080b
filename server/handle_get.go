package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/project"
	"github.com/aqlstore/aqlstore/store"
)

// handleGet answers GET /storage/documents/{id} (the RFC 0023 get
// operation): the document with that content id that the caller may read
// (public ones, and the tenant's own with a bearer token). Without a
// projection the body is the stored canonical bytes, with the id in ETag
// and the kind, owner and natural key in Aqlstore-* headers. With
// ?include=/ptr (repeatable) and ?exclude=/ptr, the answer is a signed
// {content_id, kind, natural_key, payload, missing} document projected as
// an intent's projection block would project it. A document the caller
// may not read is 404, exactly like one that does not exist.
func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	id, err := canon.ParseContentID(r.PathValue("id"))
	if err != nil {
		s.writeProblem(w, r, badRequest("bad_id", "the path must end with a content id: 64 lowercase hex digits ("+err.Error()+")"))
		return
	}
	doc, err := s.cfg.Store.Get(s.readContext(r), store.Ref{ID: id})
	s.writeDoc(w, r, doc, err)
}

// readContext acts as the caller: its tenant, else public.
func (s *Server) readContext(r *http.Request) context.Context {
	return store.WithPrincipal(r.Context(), callerOf(r).principal())
}

// writeDoc writes a document read (or the error reading it).
func (s *Server) writeDoc(w http.ResponseWriter, r *http.Request, doc *store.StoredDoc, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.writeProblem(w, r, notFound("no document there that this caller may read"))
		return
	case err != nil:
		s.cfg.Logger.Error("get", "err", err)
		s.writeProblem(w, r, storeFailure(err))
		return
	}
	q := r.URL.Query()
	if !q.Has("include") && !q.Has("exclude") {
		writeRaw(w, r, doc)
		return
	}
	s.writeProjected(w, r, doc)
}

// writeRaw writes doc unprojected, with its content id in ETag and its
// kind, owner and natural key in Aqlstore-* headers. A JSON kind is its
// canonical bytes. A text kind (PAIRL) has two representations, chosen by
// Accept (the first of the types below that it names; Vary: Accept): its
// JSON view (application/json, the default; ETag "<id>+view") — what AQL
// evaluates — or its canonical text, byte for byte as hashed (text/plain
// or application/vnd.pairl+utf8).
func writeRaw(w http.ResponseWriter, r *http.Request, doc *store.StoredDoc) {
	h := w.Header()
	h.Set("ETag", `"`+doc.ID.String()+`"`)
	h.Set("Aqlstore-Kind", string(doc.Kind))
	h.Set("Aqlstore-Owner", doc.Owner)
	if doc.NaturalKey != "" {
		h.Set("Aqlstore-Natural-Key", headerValue(doc.NaturalKey))
	}
	if doc.View == nil {
		writeJSON(w, http.StatusOK, contentJSON, doc.Body)
		return
	}
	h.Add("Vary", "Accept")
	if mt := preferredMedia(r, contentJSON, contentText, contentPAIRL); mt != contentJSON {
		if mt == contentText {
			mt += "; charset=utf-8"
		}
		h.Set("Content-Type", mt)
		h.Set("Content-Length", strconv.Itoa(len(doc.Body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(doc.Body)
		return
	}
	h.Set("ETag", `"`+doc.ID.String()+`+view"`)
	writeJSON(w, http.StatusOK, contentJSON, doc.View)
}

// headerValue is key as a header value: itself, or percent-encoded
// (url.PathEscape) when it holds a control character, which no header
// value may carry (an AIDP observation's key joins its envelope and
// execution ids with NUL) and which would break the whole answer.
func headerValue(key string) string {
	for i := 0; i < len(key); i++ {
		if c := key[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return url.PathEscape(key)
		}
	}
	return key
}

// Media types of a text kind's canonical text (PAIRL v1.1 Appendix B proposes
// the second).
const (
	contentText  = "text/plain"
	contentPAIRL = "application/vnd.pairl+utf8"
)

// preferredMedia returns the first of offers that the Accept header
// names (in the header's order; q values are not weighed), else offers[0].
func preferredMedia(r *http.Request, offers ...string) string {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		for _, o := range offers {
			if strings.EqualFold(strings.TrimSpace(mt), o) {
				return o
			}
		}
	}
	return offers[0]
}

// writeProjected writes the signed projection of doc.
func (s *Server) writeProjected(w http.ResponseWriter, r *http.Request, doc *store.StoredDoc) {
	include, p := pointers(r, "include")
	if p == nil && len(include) == 0 {
		include = []*canon.Pointer{nil} // only exclusions: start from the whole document
	}
	exclude, p2 := pointers(r, "exclude")
	if p == nil {
		p = p2
	}
	if p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	v, err := doc.Value()
	var payload map[string]any
	var missing []string
	if err == nil {
		payload, missing, err = project.Apply(v, include, exclude)
	}
	if err != nil {
		s.writeProblem(w, r, problem{status: http.StatusUnprocessableEntity, code: "not_projectable",
			title: "Document cannot be projected", detail: err.Error()})
		return
	}
	out := map[string]any{"content_id": doc.ID.String(), "kind": string(doc.Kind), "payload": payload,
		"missing": stringsDoc(missing), "resolver_did": s.cfg.Signer.DID()}
	if doc.NaturalKey != "" {
		out["natural_key"] = doc.NaturalKey
	}
	s.writeSigned(w, http.StatusOK, contentJSON, out)
}

// pointers parses the repeated query parameter name as JSON Pointers; an
// include may not name an array element by position, as in an intent
// (aql.IncludeByPosition).
func pointers(r *http.Request, name string) ([]*canon.Pointer, *problem) {
	var out []*canon.Pointer
	for _, text := range r.URL.Query()[name] {
		ptr, err := canon.ParsePointer(text)
		if err != nil {
			p := badRequest("bad_pointer", name+"="+text+": "+err.Error())
			return nil, &p
		}
		if why := aql.IncludeByPosition(ptr); name == "include" && why != "" {
			p := badRequest("bad_pointer", name+"="+text+": "+why)
			return nil, &p
		}
		out = append(out, ptr)
	}
	return out, nil
}

func stringsDoc(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
