package server

import "net/http"

// handleHealthz answers GET /healthz: 200 while the server serves, 503
// once it is shutting down. It says nothing about the store's contents.
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.closing:
		s.writeProblem(w, r, unavailable("shutting_down", "the server is shutting down"))
	default:
		writeJSON(w, http.StatusOK, contentJSON, []byte(`{"status":"ok"}`))
	}
}
