package server

import (
	"errors"
	"net/http"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// Grant endpoints. A tenant lets another tenant read one of its
// documents (store.Grant): the grantee then sees it on every read path
// (get, lookup, queries, streams, subscriptions, the AIDP inbox and
// observations) as it sees its own, owner and all, until the owner
// revokes the grant or deletes the document. Only the owner, authenticated,
// grants, revokes and lists; for anyone else a document is 404, exactly
// like a missing one, whether or not they may read it.
const pathGrantsSuffix = "/grants"

// handleGrant answers PUT /storage/documents/{id}/grants/{grantee}: 204,
// also when the grant already existed.
func (s *Server) handleGrant(w http.ResponseWriter, r *http.Request) {
	s.changeGrant(w, r, true)
}

// handleRevoke answers DELETE /storage/documents/{id}/grants/{grantee}:
// 204, also when there was no such grant.
func (s *Server) handleRevoke(w http.ResponseWriter, r *http.Request) {
	s.changeGrant(w, r, false)
}

func (s *Server) changeGrant(w http.ResponseWriter, r *http.Request, grant bool) {
	c, id, ok := s.grantTarget(w, r)
	if !ok {
		return
	}
	grantee := r.PathValue("grantee")
	ctx := store.WithPrincipal(r.Context(), c.tenant)
	var err error
	if grant {
		err = s.cfg.Store.Grant(ctx, store.Ref{ID: id}, grantee)
	} else {
		err = s.cfg.Store.Revoke(ctx, store.Ref{ID: id}, grantee)
	}
	if s.grantFailed(w, r, c, id, err) {
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleGrants answers GET /storage/documents/{id}/grants: the signed
// list of the tenants the caller's document is granted to,
// {content_id, grantees: [DID…]}.
func (s *Server) handleGrants(w http.ResponseWriter, r *http.Request) {
	c, id, ok := s.grantTarget(w, r)
	if !ok {
		return
	}
	grantees, err := s.cfg.Store.Grantees(store.WithPrincipal(r.Context(), c.tenant), store.Ref{ID: id})
	if s.grantFailed(w, r, c, id, err) {
		return
	}
	s.writeSigned(w, http.StatusOK, contentJSON, map[string]any{"content_id": id.String(),
		"grantees": stringsDoc(grantees), "resolver_did": s.cfg.Signer.DID()})
}

// grantTarget checks what every grant endpoint needs: an authenticated
// caller, a content id, and no visibility other than the caller's own
// (public documents are every reader's already).
func (s *Server) grantTarget(w http.ResponseWriter, r *http.Request) (caller, canon.ContentID, bool) {
	c, ok := s.requireTenant(w, r)
	if !ok {
		return c, canon.ContentID{}, false
	}
	id, err := canon.ParseContentID(r.PathValue("id"))
	if err != nil {
		s.writeProblem(w, r, badRequest("bad_id", "the path must name a content id: 64 lowercase hex digits ("+err.Error()+")"))
		return c, id, false
	}
	if v := r.URL.Query().Get("visibility"); v != "" && v != "private" {
		s.writeProblem(w, r, badRequest("bad_parameter", "grants apply to the caller's own documents: "+
			"drop ?visibility= (public documents are visible to every reader already)"))
		return c, id, false
	}
	return c, id, true
}

// grantFailed writes the problem for err, if any: 404 for a document
// that is not the caller's, 400 bad_grantee for a grantee that is not
// another tenant.
func (s *Server) grantFailed(w http.ResponseWriter, r *http.Request, c caller, id canon.ContentID, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, store.ErrNotFound):
		s.writeProblem(w, r, notFound("no document "+id.String()+" of "+c.tenant+": "+
			"grants name one of the caller's own documents"))
	case errors.Is(err, store.ErrInvalid):
		s.writeProblem(w, r, badRequest("bad_grantee", err.Error()+
			" (the grantee is the last path segment, percent-encoded: "+pathDocuments+"/{id}"+pathGrantsSuffix+"/{tenant DID})"))
	default:
		s.cfg.Logger.Error("grant", "err", err)
		s.writeProblem(w, r, storeFailure(err)) // a disk fault is 503, damage 500, as for every store write
	}
	return true
}
