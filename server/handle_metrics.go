package server

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// handleMetrics answers GET /metrics in the Prometheus text format. With
// authentication configured, only operators (Auth) may read it: the store
// size it reports counts every tenant's documents.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Auth.Enabled() {
		c, ok := s.requireTenant(w, r)
		if !ok {
			return
		}
		if !s.cfg.Auth.Operator(c.tenant) {
			s.writeProblem(w, r, forbidden("metrics are for operators; list this DID under operators in the auth file"))
			return
		}
	}
	promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}).ServeHTTP(w, r)
}
