package server

// Paths of the storage endpoints, shared by the routes and the manifest.
const (
	pathIntent      = "/oap/intent"
	pathInvoke      = "/oap/invoke"
	pathAudit       = "/oap/audit"
	pathConformance = "/oap-conformance-receipt.json"
	pathDocuments   = "/storage/documents"
	pathSubscribe   = "/storage/subscribe"
	pathExport      = "/storage/export"
	pathImport      = "/storage/import"
	pathDID         = "/.well-known/did.json"
	pathManifest    = "/.well-known/oap-tool.json"
)

// routes registers every endpoint; README.md documents each one.
func (s *Server) routes() {
	quiet := routeOptions{noRateLimit: true}
	s.mux.Handle("GET /healthz", s.wrap("healthz", quiet, s.handleHealthz))
	s.mux.Handle("GET /metrics", s.wrap("metrics", quiet, s.handleMetrics))
	s.mux.Handle("GET "+pathManifest, s.wrap("manifest", routeOptions{}, s.handleManifest))
	s.mux.Handle("GET "+pathDID, s.wrap("did", routeOptions{}, s.handleDID))
	s.mux.Handle("POST "+pathIntent, s.wrap("intent", routeOptions{}, s.handleIntent))
	s.mux.Handle("POST "+pathInvoke, s.wrap("invoke", routeOptions{}, s.handleInvoke))
	s.mux.Handle("GET "+pathAudit, s.wrap("audit", routeOptions{}, s.handleAudit))
	s.mux.Handle("GET "+pathConformance, s.wrap("conformance", routeOptions{}, s.handleConformance))
	s.mux.Handle("POST "+pathSubscribe, s.wrap("subscribe", routeOptions{}, s.handleSubscribe))
	s.mux.Handle("POST "+pathDocuments, s.wrap("put", routeOptions{}, s.handlePut))
	s.mux.Handle("GET "+pathDocuments, s.wrap("lookup", routeOptions{}, s.handleLookup))
	s.mux.Handle("GET "+pathDocuments+"/{id}", s.wrap("get", routeOptions{}, s.handleGet))
	s.mux.Handle("DELETE "+pathDocuments+"/{id}", s.wrap("delete", routeOptions{}, s.handleDelete))
	s.mux.Handle("GET "+pathDocuments+"/{id}"+pathGrantsSuffix, s.wrap("grants", routeOptions{}, s.handleGrants))
	s.mux.Handle("PUT "+pathDocuments+"/{id}"+pathGrantsSuffix+"/{grantee}", s.wrap("grant", routeOptions{}, s.handleGrant))
	s.mux.Handle("DELETE "+pathDocuments+"/{id}"+pathGrantsSuffix+"/{grantee}", s.wrap("revoke", routeOptions{}, s.handleRevoke))
	s.mux.Handle("GET "+pathExport, s.wrap("export", routeOptions{}, s.handleExport))
	s.mux.Handle("POST "+pathImport, s.wrap("import", routeOptions{}, s.handleImport))
	s.mux.Handle("POST "+pathAIDPIntents, s.wrap("aidp_intent", routeOptions{}, s.handleAIDPIntent))
	s.mux.Handle("POST "+pathAIDPObservations, s.wrap("aidp_observation", routeOptions{}, s.handleAIDPObservation))
	s.mux.Handle("GET "+pathAIDPObservations+"/{envelope_id}", s.wrap("aidp_observations", routeOptions{}, s.handleAIDPGetObservations))
	s.mux.Handle("GET "+pathAIDPInbox, s.wrap("aidp_inbox", routeOptions{}, s.handleAIDPInbox))
	s.mux.Handle("/", s.wrap("unknown", routeOptions{}, s.handleNotFound))
}
