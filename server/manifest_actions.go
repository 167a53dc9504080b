package server

import (
	"math"
	"strconv"

	"github.com/aqlstore/aqlstore/canon"
)

// manifestAction describes one storage operation as an OAP action
// (oap-action.schema.json).
type manifestAction struct {
	id, summary, effects string
	idempotent           bool
	in, out              string // what the input and output are
}

// manifestActions are the RFC 0023 storage operations, in the order the
// README lists them.
var manifestActions = []manifestAction{
	{"resolve_intent", "Resolve an RFC 0020 intent (the storage query operation).", "read", true,
		"an intent (application/oap+json) to endpoints.intent", "a signed IntentResponse"},
	{"subscribe", "Subscribe with a subscription intent: server-sent events of matching changes.", "read", true,
		"a subscription intent to endpoints.subscribe; Last-Event-ID resumes", "signed events: candidate, deleted, coalesced, rate_limited, end"},
	{"storage_put", "Store JSON documents under the caller's tenant.", "write", true,
		"a JSON document, or NDJSON, to endpoints.storage_put", "the signed list of stored references"},
	{"storage_get", "Read a document by content id, optionally projected.", "read", true,
		"GET endpoints.storage_get with ?include= and ?exclude= pointers", "canonical bytes, or a signed projection"},
	{"storage_delete", "Delete one of the caller's documents, with a receipt.", "write", true,
		"DELETE endpoints.storage_delete", "204 No Content"},
	{"storage_grant", "Let another tenant read one of the caller's documents, with a receipt.", "write", true,
		"PUT endpoints.storage_grant", "204 No Content"},
	{"storage_revoke", "Withdraw a grant of one of the caller's documents, with a receipt.", "write", true,
		"DELETE endpoints.storage_grant", "204 No Content"},
	{"storage_grants", "List the tenants one of the caller's documents is granted to.", "read", true,
		"GET endpoints.storage_grants", "the signed {content_id, grantees}"},
	{"storage_export", "Export the caller's documents and receipt chain, signed.", "read", true,
		"GET endpoints.storage_export", "a signed export"},
	{"storage_import", "Import a signed export into the caller's tenant, with a migration receipt.", "write", false,
		"a signed export to endpoints.storage_import", "a signed import report"},
}

// actions lists the storage operations as OAP actions.
func (s *Server) actions() []any {
	rpm := canon.Number("60000") // no limit configured: a nominal figure
	if s.cfg.RateLimit > 0 {
		rpm = canon.Number(strconv.FormatInt(int64(math.Max(1, s.cfg.RateLimit*60)), 10))
	}
	limit := map[string]any{"rpm": rpm, "concurrent": canon.Number(strconv.Itoa(s.cfg.MaxStreams))}
	version := semver(s.cfg.Version)
	out := make([]any, len(manifestActions))
	for i, a := range manifestActions {
		act := map[string]any{
			"id": a.id, "version": version, "summary": a.summary,
			"description_for_agents": a.summary + " Input: " + a.in + ". Output: " + a.out + ".",
			"input_schema":           map[string]any{"type": "object"},
			"output_schema":          map[string]any{"type": "object"},
			"side_effects":           a.effects, "idempotent": a.idempotent, "rate_limit": limit,
			"data_classes_in": []any{}, "data_classes_out": []any{},
			"examples": []any{map[string]any{"input": map[string]any{}, "output": map[string]any{},
				"description": a.in + " → " + a.out}},
		}
		if a.idempotent { // repeating it changes nothing, however late: no window
			act["idempotency_window_seconds"] = canon.Number(strconv.Itoa(math.MaxInt32))
		}
		out[i] = act
	}
	return out
}
