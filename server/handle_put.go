package server

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
	"github.com/aqlstore/aqlstore/canon/execintent"
	"github.com/aqlstore/aqlstore/canon/pairl"
	"github.com/aqlstore/aqlstore/store"
)

// handlePut answers POST /storage/documents (the RFC 0023 put operation):
// one JSON document (application/json), or many, one per line
// (application/x-ndjson), stored in one atomic commit under the caller's
// tenant (?visibility=public for public writers). ?kind= names the kind
// instead of detecting it. 201 lists the documents, each saying whether
// this request created it; putting an identical document again is
// idempotent, and when every document was already stored the answer is
// 200. A number stored rounded to the nearest double is listed under
// "warnings" (document, pointer, number, stored). Bad input is 400 naming the
// document, line and JSON Pointer; a natural key already used for other
// content is 409.
func (s *Server) handlePut(w http.ResponseWriter, r *http.Request) {
	c, ok := s.requireTenant(w, r)
	if !ok {
		return
	}
	docs, release, p := s.readDocuments(w, r, c)
	defer release() // the documents point into the body until the store has written them
	if p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	refs, err := s.cfg.Store.PutBatch(store.WithPrincipal(r.Context(), c.tenant), docs)
	if err != nil {
		p := putProblem(err, len(docs) > 1)
		if p.status == http.StatusInternalServerError {
			s.cfg.Logger.Error("put", "err", err)
		}
		s.writeProblem(w, r, p)
		return
	}
	if len(refs) == 1 {
		w.Header().Set("Location", pathDocuments+"/"+refs[0].ID.String())
	}
	status := http.StatusOK
	for _, ref := range refs {
		if ref.Created {
			status = http.StatusCreated
		}
	}
	out := map[string]any{"documents": refsDoc(refs)}
	if warnings := roundedWarnings(docs); len(warnings) > 0 {
		out["warnings"] = warnings
	}
	s.writeSigned(w, status, contentJSON, out)
}

// roundedWarnings lists the numbers stored rounded to the nearest double
// (RFC 8785), by document (from 1, as in the errors) and JSON Pointer: the
// put succeeded, but not every digit was kept.
func roundedWarnings(docs []store.Document) []any {
	var out []any
	for i, d := range docs {
		for _, r := range canon.RoundedNumbers(d.Body) {
			out = append(out, map[string]any{"document": i + 1, "pointer": r.Pointer, "number": r.Literal,
				"stored": r.Stored, "message": r.String()})
		}
	}
	return out
}

// readDocuments reads the body as one document or NDJSON, under the
// write gate (readWriteBody); call release when the documents are written.
func (s *Server) readDocuments(w http.ResponseWriter, r *http.Request, c caller) (docs []store.Document, release func(), p *problem) {
	release = func() {}
	if p := checkMedia(r, contentJSON, contentNDJSON); p != nil {
		return nil, release, p
	}
	owner, p := s.writeOwner(r, c)
	if p != nil {
		return nil, release, p
	}
	var kind canon.Kind
	if k := r.URL.Query().Get("kind"); k != "" {
		parsed, err := canon.ParseKind(k)
		if err != nil {
			p := badRequest("bad_parameter", err.Error())
			return nil, release, &p
		}
		kind = parsed
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	ndjson := mt == contentNDJSON
	limit := s.cfg.MaxBodyBytes
	if ndjson {
		limit = s.cfg.MaxImportBytes
	}
	body, release, p := s.readWriteBody(w, r, limit)
	if p != nil {
		return nil, release, p
	}
	docs, p = splitDocuments(body, ndjson, kind, owner, s.cfg.MaxPutDocuments)
	return docs, release, p
}

// splitDocuments cuts an NDJSON body into lines (blank lines skipped),
// at most max documents.
func splitDocuments(body []byte, ndjson bool, kind canon.Kind, owner string, max int) ([]store.Document, *problem) {
	if !ndjson {
		return []store.Document{{Body: body, Kind: kind, Owner: owner}}, nil
	}
	// One slice of the right size: appending would copy the documents
	// over and over, and leave up to twice their headers behind.
	docs := make([]store.Document, 0, min(bytes.Count(body, []byte{'\n'})+1, max))
	for line := range bytes.Lines(body) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if len(docs) == max {
			p := problem{status: http.StatusRequestEntityTooLarge, code: "too_many_documents", title: "Too many documents",
				detail: fmt.Sprintf("the body holds more than %d documents, the limit per request of this server "+
					"(--max-put-documents %d); nothing was stored: send them in requests of at most %d documents", max, max, max),
				extra: map[string]any{"limit": canon.Number(strconv.Itoa(max))}}
			return nil, &p
		}
		docs = append(docs, store.Document{Body: line, Kind: kind, Owner: owner})
	}
	if len(docs) == 0 {
		p := badRequest("empty_body", "the body holds no document")
		return nil, &p
	}
	return docs, nil
}

// putProblem explains why a put failed; nothing of the batch was stored.
func putProblem(err error, batch bool) problem {
	where := ""
	var be *store.BatchError
	if errors.As(err, &be) {
		if batch {
			where = fmt.Sprintf("document %d (line %d of the non-blank lines): ", be.Index+1, be.Index+1)
		}
		err = be.Err // the document is named once, above
	}
	err = plainError{err}
	var ce *store.ConflictError
	switch {
	case errors.As(err, &ce):
		return conflict(where + canon.WithoutPackagePrefixes(ce.Error()))
	case errors.Is(err, canon.ErrSyntax), errors.Is(err, canon.ErrInvalidDocument), errors.Is(err, canon.ErrLimit),
		errors.Is(err, canon.ErrDuplicateName), errors.Is(err, canon.ErrNotCanonicalizable), errors.Is(err, canon.ErrInvalidUTF8),
		errors.Is(err, canon.ErrUnknownKind), errors.Is(err, store.ErrInvalid):
		return badRequest("invalid_document", where+err.Error()+"; nothing was stored")
	case errors.Is(err, store.ErrReplay):
		return problem{status: http.StatusConflict, code: "replay_detected", title: "Replay detected",
			detail: where + err.Error() + "; nothing was stored"}
	case errors.Is(err, store.ErrUnbound), errors.Is(err, store.ErrThread):
		return conflict(where + err.Error() + "; nothing was stored")
	case invalidMessage(err):
		return badRequest("invalid_document", where+err.Error()+"; nothing was stored")
	}
	return storeFailure(err)
}

// invalidMessage reports whether err is a message kind's refusal of its
// input (AIDP, PAIRL, ExecutionIntent), each naming a pointer or a line.
func invalidMessage(err error) bool {
	var (
		al aidp.ErrorList
		ae *aidp.Error
		pe *pairl.Error
		ee *execintent.Error
		el execintent.ErrorList
	)
	return errors.As(err, &al) || errors.As(err, &ae) || errors.As(err, &pe) || errors.As(err, &ee) || errors.As(err, &el)
}

// refsDoc lists the documents a put stored or found already stored. It
// leaves out the store's document numbers: they count every tenant's
// documents.
func refsDoc(refs []store.Ref) []any {
	out := make([]any, len(refs))
	for i, ref := range refs {
		out[i] = map[string]any{"id": ref.ID.String(), "kind": string(ref.Kind), "owner": ref.Owner,
			"created": ref.Created}
	}
	return out
}

// plainError reads as its error without the library packages' prefixes
// (canon.WithoutPackagePrefixes) and unwraps to it, so the checks above
// still see every sentinel.
type plainError struct{ err error }

func (e plainError) Error() string { return canon.WithoutPackagePrefixes(e.err.Error()) }
func (e plainError) Unwrap() error { return e.err }
