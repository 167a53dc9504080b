package server

import (
	"net/http"
	"strings"
)

// handleManifest answers GET /.well-known/oap-tool.json: the server's OAP
// tool manifest. OAP's conformance probe looks for endpoints.intent; the
// storage endpoints of RFC 0023 follow it. Endpoints are absolute URLs when
// Config.PublicURL is set, else paths on this server. The manifest is
// signed like every document the server writes.
func (s *Server) handleManifest(w http.ResponseWriter, r *http.Request) {
	s.writeSigned(w, http.StatusOK, contentJSON, s.manifest())
}

// manifest builds the tool manifest.
func (s *Server) manifest() map[string]any {
	did := s.DIDWeb()
	return map[string]any{
		"oap_version": "1.0",
		"tool": map[string]any{
			"id": "aqlstore", "did": did, "name": "aqlstore", "version": s.cfg.Version,
			"publisher":              map[string]any{"did": did, "legal_name": "aqlstore operator", "verified": false},
			"categories":             []any{"storage", "resolver"},
			"description_for_humans": "An indexed store for agent data, queried with AQL intents (RFC 0020).",
			"description_for_agents": "POST an RFC 0020 intent to endpoints.intent for a signed IntentResponse; " +
				"category subscription (or Accept: text/event-stream) streams server-sent events.",
		},
		"endpoints": s.endpoints(),
		"auth":      s.authMethods(),
		"resolver": map[string]any{
			"did_key": s.cfg.Signer.DID(), "kid": s.cfg.Signer.KeyID(), "role": "storage_substrate",
			"categories": []any{"commercial", "knowledge", "action", "delegation", "discovery", "subscription"},
			"streaming":  []any{"server-sent-events"},
		},
	}
}

// endpoints lists the intent endpoint and the storage operations.
func (s *Server) endpoints() map[string]any {
	u := func(path string) string { return strings.TrimSuffix(s.cfg.PublicURL, "/") + path }
	return map[string]any{
		"intent":         u(pathIntent),
		"invoke":         u(pathIntent),
		"subscribe":      u(pathSubscribe),
		"data_export":    u(pathExport),
		"data_delete":    u(pathDocuments + "/{id}"),
		"storage_put":    u(pathDocuments),
		"storage_get":    u(pathDocuments + "/{id}"),
		"storage_delete": u(pathDocuments + "/{id}"),
		"storage_query":  u(pathIntent),
		"storage_export": u(pathExport),
		"storage_import": u(pathImport),
		"did":            u(pathDID),
		"health":         u("/healthz"),
	}
}

func (s *Server) authMethods() []any {
	methods := []any{map[string]any{"method": "anonymous"}}
	if s.cfg.Auth.Enabled() {
		methods = append(methods, map[string]any{"method": "api_key",
			"config": map[string]any{"scheme": "bearer", "header": "Authorization"}})
	}
	return methods
}
