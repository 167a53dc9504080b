package server

import (
	"net/http"
	"strings"
)

// allowedMethods lists the methods of each path, for 405 answers.
var allowedMethods = map[string]string{
	"/healthz": "GET", "/metrics": "GET", pathManifest: "GET", pathDID: "GET",
	pathIntent: "POST", pathInvoke: "POST", pathAudit: "GET", pathConformance: "GET",
	pathSubscribe: "POST", pathDocuments: "GET, POST",
	pathExport: "GET", pathImport: "POST",
	pathAIDPIntents: "POST", pathAIDPObservations: "POST", pathAIDPInbox: "GET",
}

// itemMethods lists the methods of the paths below each prefix (one more
// segment: a document, an envelope's observations).
var itemMethods = map[string]string{pathDocuments + "/": "GET, DELETE", pathAIDPObservations + "/": "GET"}

// grantMethods lists the methods of a document's grant paths:
// /storage/documents/{id}/grants and …/grants/{did}.
func grantMethods(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, pathDocuments+"/")
	if !ok {
		return "", false
	}
	id, tail, ok := strings.Cut(rest, pathGrantsSuffix)
	switch {
	case !ok || id == "" || strings.Contains(id, "/"):
		return "", false
	case tail == "":
		return "GET", true
	case strings.HasPrefix(tail, "/") && len(tail) > 1 && !strings.Contains(tail[1:], "/"):
		return "PUT, DELETE", true
	}
	return "", false
}

// handleNotFound answers every request no route takes: 405 with Allow for
// a known path and another method, else 404.
func (s *Server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	allow, ok := allowedMethods[r.URL.Path]
	for prefix, methods := range itemMethods {
		if rest, isItem := strings.CutPrefix(r.URL.Path, prefix); isItem && rest != "" && !strings.Contains(rest, "/") {
			allow, ok = methods, true
		}
	}
	if m, isGrant := grantMethods(r.URL.Path); isGrant {
		allow, ok = m, true
	}
	if ok {
		w.Header().Set("Allow", allow)
		s.writeProblem(w, r, problem{status: http.StatusMethodNotAllowed, code: "method_not_allowed",
			title: "Method not allowed", detail: r.Method + " is not served at " + r.URL.Path + "; use " + allow})
		return
	}
	s.writeProblem(w, r, notFound("no endpoint at "+r.URL.Path+"; GET "+pathManifest+" lists them"))
}
