package server

import (
	"errors"
	"net/http"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// handleDelete answers DELETE /storage/documents/{id} (the RFC 0023
// delete operation): the caller's own document with that content id
// (?visibility=public: the public one, for public writers) is deleted
// with a receipt; 204. Another tenant's document, or none, is 404.
func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {
	c, ok := s.requireTenant(w, r)
	if !ok {
		return
	}
	id, err := canon.ParseContentID(r.PathValue("id"))
	if err != nil {
		s.writeProblem(w, r, badRequest("bad_id", "the path must end with a content id: 64 lowercase hex digits"))
		return
	}
	owner, p := s.writeOwner(r, c)
	if p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	err = s.cfg.Store.Delete(store.WithPrincipal(r.Context(), c.tenant), store.Ref{ID: id, Owner: owner})
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.writeProblem(w, r, notFound("no document "+id.String()+" of "+owner+" to delete"))
	case err != nil:
		s.cfg.Logger.Error("delete", "err", err)
		s.writeProblem(w, r, storeFailure(err))
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}
