package server

import (
	"net/http"

	"github.com/aqlstore/aqlstore/store"
)

// writeOwner is the owner a write acts on: the caller's tenant, or the
// public documents with ?visibility=public, which only public writers
// (Auth) may change.
func (s *Server) writeOwner(r *http.Request, c caller) (string, *problem) {
	switch r.URL.Query().Get("visibility") {
	case "", "private":
		return c.tenant, nil
	case "public":
		if !s.cfg.Auth.PublicWriter(c.tenant) {
			p := forbidden("only public writers (public_writers in the auth file) may write public documents")
			return "", &p
		}
		return store.Public, nil
	}
	p := badRequest("bad_parameter", "visibility must be private (the default) or public")
	return "", &p
}
