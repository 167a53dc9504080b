package server

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/server/client"
)

// handleManifest answers GET /.well-known/oap-tool.json: the server's OAP
// tool manifest. It is a document of the published oap-manifest.schema.json
// (v1.0) with two extensions that schema's closed objects do not list:
// endpoints.intent and endpoints.storage_* (OAP's conformance probe looks
// for endpoints.intent; RFC 0023 names the storage operations), and the
// top-level signature every document the server writes carries. Endpoints
// are absolute URLs when Config.PublicURL is set, else paths on this
// server.
func (s *Server) handleManifest(w http.ResponseWriter, r *http.Request) {
	s.writeSigned(w, http.StatusOK, contentJSON, s.manifest())
}

// ManifestExtensions are the members of the server's manifest that
// oap-manifest.schema.json v1.0 does not list, as JSON Pointers; every
// other member is the schema's. A test strips exactly these and validates
// the rest against the published schema.
var ManifestExtensions = []string{
	"/signature", "/endpoints/intent", "/endpoints/storage_put", "/endpoints/storage_get",
	"/endpoints/storage_delete", "/endpoints/storage_query", "/endpoints/storage_export", "/endpoints/storage_import",
	"/endpoints/storage_grant", "/endpoints/storage_grants", "/accountability",
}

// manifest builds the tool manifest.
func (s *Server) manifest() map[string]any {
	did := s.DIDWeb()
	return map[string]any{
		"oap_version": "1.0",
		"tool": map[string]any{
			"id": "aqlstore", "did": did, "name": "aqlstore", "version": semver(s.cfg.Version),
			"publisher":              map[string]any{"did": did, "legal_name": "aqlstore operator", "verified": false},
			"categories":             []any{"storage", "resolver"},
			"description_for_humans": "An indexed store for agent data, queried with AQL intents (RFC 0020).",
			"description_for_agents": "POST an RFC 0020 intent to endpoints.intent for a signed IntentResponse " +
				"(resolver key " + s.cfg.Signer.DID() + ", also in /.well-known/did.json); category subscription " +
				"(or Accept: text/event-stream) streams server-sent events. The storage_* endpoints are the " +
				"RFC 0023 storage operations.",
		},
		"endpoints":     s.endpoints(),
		"auth":          s.authMethods(),
		"actions":       s.actions(),
		"sla":           s.sla(),
		"trust":         map[string]any{"publisher_verified": false, "data_residency": []any{}, "gdpr_compliant": false},
		"data_policy":   s.dataPolicy(),
		"risk_class":    "minimal",
		"jurisdictions": []any{"EU"},
		"governance": map[string]any{"dispute_resolution_url": s.url(pathManifest),
			"contact_email": "operator@" + hostOf(did)},
		// How a tenant recovers its documents and receipt chain: the
		// signed export, which storage_import reads back.
		"accountability": map[string]any{"recovery": map[string]any{"export_endpoint": s.url(pathExport),
			"import_endpoint": s.url(pathImport)}},
	}
}

// url is path on this server: absolute with Config.PublicURL.
func (s *Server) url(path string) string { return strings.TrimSuffix(s.cfg.PublicURL, "/") + path }

// endpoints lists the schema's endpoints, then the intent endpoint and
// the storage operations (ManifestExtensions).
func (s *Server) endpoints() map[string]any {
	doc := s.url(pathDocuments + "/{id}")
	return map[string]any{
		"invoke":         s.url(pathInvoke),
		"stream":         s.url(pathIntent),
		"subscribe":      s.url(pathSubscribe),
		"audit":          s.url(pathAudit), // receipts of invoke; the store's own are in the export
		"data_export":    s.url(pathExport),
		"data_delete":    doc,
		"incident":       s.url("/healthz"),
		"intent":         s.url(pathIntent),
		"storage_put":    s.url(pathDocuments),
		"storage_get":    doc,
		"storage_delete": doc,
		"storage_query":  s.url(pathIntent),
		"storage_export": s.url(pathExport),
		"storage_import": s.url(pathImport),
		"storage_grant":  s.url(pathDocuments + "/{id}" + pathGrantsSuffix + "/{did}"),
		"storage_grants": s.url(pathDocuments + "/{id}" + pathGrantsSuffix),
	}
}

func (s *Server) authMethods() []any {
	methods := []any{map[string]any{"method": "anonymous", "config": map[string]any{"reads": "public documents"}}}
	if s.cfg.Auth.Enabled() {
		methods = append(methods,
			map[string]any{"method": "api_key", "config": map[string]any{"scheme": "bearer", "header": "Authorization"}},
			map[string]any{"method": "api_key", "config": map[string]any{"scheme": client.SchemeDIDKey, "header": "Authorization",
				"signature": "Ed25519 by the tenant's did:key over method, target, audience, created, nonce and body sha256",
				"audience":  s.cfg.Signer.DID(), "window_seconds": seconds(s.cfg.SignedRequestWindow.Seconds())}})
	}
	return methods
}

func (s *Server) sla() map[string]any {
	return map[string]any{"uptime_target": canon.Number("0.99"), "latency_p95_ms": canon.Number("10"),
		"max_call_duration_ms": seconds(s.cfg.QueryTimeout.Seconds() * 1000), "regions": []any{"self-hosted"},
		"incident_disclosure_within_hours": canon.Number("72"), "supports_streaming": true, "supports_async": false}
}

func (s *Server) dataPolicy() map[string]any {
	return map[string]any{"stores_principal_data": true, "retention_days": canon.Number("0"),
		"shares_with_third_parties": false, "training_on_principal_data": "never",
		"deletion_endpoint": s.url(pathDocuments + "/{id}"), "export_endpoint": s.url(pathExport),
		"lawful_bases": []any{"contract"}}
}

func seconds(f float64) canon.Number { return canon.Number(strconv.FormatInt(int64(f), 10)) }

var semverPattern = regexp.MustCompile(`^\d+\.\d+\.\d+(?:[-+].+)?$`)

// semver is v as the manifest's version pattern wants it: v1.2.3 →
// 1.2.3, a build without a version (devel) → 0.0.0-devel.
func semver(v string) string {
	v = strings.TrimPrefix(v, "v")
	if semverPattern.MatchString(v) {
		return v
	}
	return "0.0.0-" + strings.Trim(v, "()")
}

// hostOf is the host a did:web names (percent-encoded port dropped).
func hostOf(didWeb string) string {
	host, _, _ := strings.Cut(strings.TrimPrefix(didWeb, "did:web:"), "%3A")
	host, _, _ = strings.Cut(host, ":")
	if host == "" {
		return "localhost"
	}
	return host
}
