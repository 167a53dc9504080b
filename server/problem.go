package server

import (
	"errors"
	"maps"
	"net/http"
	"strconv"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// problemTypePrefix starts every problem type URI; the code follows.
const problemTypePrefix = "urn:aqlstore:problem:"

// problem is an RFC 9457 problem document before it is signed and sent.
type problem struct {
	status int
	code   string         // short and stable, e.g. body_too_large; the type URI ends with it
	title  string         // the same for every occurrence of code
	detail string         // this occurrence: what was wrong and how to fix it
	extra  map[string]any // extension members
}

func badRequest(code, detail string) problem {
	return problem{status: http.StatusBadRequest, code: code, title: "Bad request", detail: detail}
}

func unauthorized(detail string) problem {
	return problem{status: http.StatusUnauthorized, code: "unauthenticated", title: "Authentication required", detail: detail}
}

func forbidden(detail string) problem {
	return problem{status: http.StatusForbidden, code: "forbidden", title: "Forbidden", detail: detail}
}

func notFound(detail string) problem {
	return problem{status: http.StatusNotFound, code: "not_found", title: "Not found", detail: detail}
}

func conflict(detail string) problem {
	return problem{status: http.StatusConflict, code: "conflict", title: "Conflict", detail: detail}
}

func unsupportedMedia(got, want string) problem {
	return problem{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type", title: "Unsupported media type",
		detail: "Content-Type " + strconv.Quote(got) + " is not accepted here; send " + want}
}

func tooLarge(limit int64) problem {
	return problem{status: http.StatusRequestEntityTooLarge, code: "body_too_large", title: "Request body too large",
		detail: "the body is over the limit of " + strconv.FormatInt(limit, 10) + " bytes; send less (fewer documents, a shorter intent)",
		extra:  map[string]any{"limit_bytes": canon.Number(strconv.FormatInt(limit, 10))}}
}

func internalError() problem {
	return problem{status: http.StatusInternalServerError, code: "internal", title: "Internal error",
		detail: "the server failed; its log has the cause"}
}

// storeFailure is the problem for an error the store met that is not the
// request's fault: a disk fault is 503 (the store refuses writes until
// the operator has mended the disk and restarted the server), damaged data
// 500 store_corrupt, anything else 500 internal. None names a file: the
// log has the cause.
func storeFailure(err error) problem {
	switch {
	case errors.Is(err, store.ErrDiskFault):
		return unavailable("disk_fault", "the store met a disk fault (a failed write, fsync or a full disk) and refuses "+
			"writes until the operator has mended the disk and restarted the server; reads may still work")
	case errors.Is(err, store.ErrCorrupt):
		return problem{status: http.StatusInternalServerError, code: "store_corrupt", title: "Store damaged",
			detail: "the store read damaged data; the operator should run `aqlstore verify`, which names it"}
	}
	return internalError()
}

func unavailable(code, detail string) problem {
	return problem{status: http.StatusServiceUnavailable, code: code, title: "Service unavailable", detail: detail}
}

// members returns the problem's RFC 9457 members for a request to path.
func (p problem) members(path string) map[string]any {
	doc := map[string]any{
		"type":     problemTypePrefix + p.code,
		"title":    p.title,
		"status":   canon.Number(strconv.Itoa(p.status)),
		"detail":   p.detail,
		"instance": path,
		"code":     p.code,
	}
	maps.Copy(doc, p.extra)
	return doc
}

// writeProblem signs p and writes it as application/problem+json.
func (s *Server) writeProblem(w http.ResponseWriter, r *http.Request, p problem) {
	if p.status == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
		challenge(w, "")
	}
	// The instance is a URI reference (RFC 9457): the escaped path, which
	// is ASCII, where the decoded one may hold bytes that are not UTF-8
	// (%FF) and could not be signed; a detail quoting such input is made
	// valid UTF-8 for the same reason.
	p.detail = strings.ToValidUTF8(p.detail, "\uFFFD")
	doc := p.members(r.URL.EscapedPath())
	doc["resolver_did"] = s.cfg.Signer.DID()
	s.writeSigned(w, p.status, contentProblem, doc)
}

// writeSigned signs doc and writes its RFC 8785 bytes with status.
func (s *Server) writeSigned(w http.ResponseWriter, status int, contentType string, doc map[string]any) {
	body, _, err := s.cfg.Signer.AppendSigned(nil, doc)
	if err != nil {
		s.cfg.Logger.Error("sign response", "err", err)
		status, contentType = http.StatusInternalServerError, contentProblem
		body = canon.AppendValue(nil, internalError().members(""))
	}
	writeJSON(w, status, contentType, body)
}

// writeJSON writes encoded JSON and a newline with status. The newline
// is a second write, not appended: appending would copy a large answer
// whose slice is full (net/http buffers both writes into one).
func writeJSON(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	if _, err := w.Write(body); err == nil {
		_, _ = w.Write(newline)
	}
}

var newline = []byte{'\n'}

// Media types the server reads and writes.
const (
	contentJSON    = "application/json"
	contentOAP     = "application/oap+json"
	contentProblem = "application/problem+json"
	contentNDJSON  = "application/x-ndjson"
	contentSSE     = "text/event-stream"
)
