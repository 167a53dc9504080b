package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// handleExport answers GET /storage/export (the RFC 0023 export
// operation): every document of the caller's tenant (?visibility=public:
// the public documents, for public writers) and the receipts of their
// mutations, signed by the resolver over RFC 8785. Other tenants'
// documents and receipts are never in it. 503 when writers keep moving the
// chain while it is read.
func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	c, ok := s.requireTenant(w, r)
	if !ok {
		return
	}
	owner, p := s.writeOwner(r, c)
	if p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	e, err := s.cfg.Store.Export(r.Context(), owner)
	if err != nil {
		s.exportFailed(w, r, err)
		return
	}
	doc, err := store.EncodeExport(e, s.cfg.Signer.DID(), s.cfg.Now())
	if err != nil {
		s.exportFailed(w, r, err)
		return
	}
	// A large export may take longer to write than WriteTimeout allows.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout + s.cfg.StreamWriteTimeout))
	w.Header().Set("Content-Disposition", `attachment; filename="aqlstore-export.json"`)
	s.writeSigned(w, http.StatusOK, contentJSON, doc)
}

func (s *Server) exportFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrBusy) {
		w.Header().Set("Retry-After", "1")
		s.writeProblem(w, r, unavailable("busy", err.Error()))
		return
	}
	s.cfg.Logger.Error("export", "err", err)
	s.writeProblem(w, r, storeFailure(err))
}

// exportLimits bound the export documents POST /storage/import decodes:
// an export is one object holding every document of a tenant.
func (s *Server) exportLimits() *canon.Limits {
	// Each document is bounded by the store's limits when it is put; the
	// export as a whole holds every document's paths.
	lim := canon.Limits{MaxBytes: int(s.cfg.MaxImportBytes), MaxDepth: canon.DefaultMaxDepth + 4, MaxMembers: 1 << 24}.WithoutPathLimits()
	return &lim
}
