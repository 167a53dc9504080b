package server

import (
	"net/http"

	"github.com/aqlstore/aqlstore/canon"
)

// handleLookup answers GET /storage/documents?kind=K&key=N: the document
// of kind K whose natural key is N (the caller's own, else the public
// one), written as handleGet writes it.
func (s *Server) handleLookup(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	kind, err := canon.ParseKind(q.Get("kind"))
	if err != nil || q.Get("key") == "" {
		s.writeProblem(w, r, badRequest("bad_parameter", "give ?kind= (a document kind) and ?key= (its natural key), "+
			"or GET "+pathDocuments+"/{content id}"))
		return
	}
	doc, err := s.cfg.Store.Lookup(s.readContext(r), kind, q.Get("key"))
	s.writeDoc(w, r, doc, err)
}
