package server

import (
	"math"
	"net/http"
	"strconv"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// manifestAction describes one operation as an OAP action
// (oap-action.schema.json).
type manifestAction struct {
	id, summary, effects string
	idempotent           bool
	in, out              string // what the input and output are
	endpoint             string // the manifest's endpoint that serves it
}

// invokers carry out the actions endpoints.invoke runs, by id; the
// others only their own endpoints serve. Each returns the output, or
// false once it has answered the request itself (a refusal).
var invokers = map[string]func(s *Server, w http.ResponseWriter, r *http.Request, input any) (any, bool){
	"describe":       runDescribe,
	"resolve_intent": runResolveIntent,
}

// manifestActions are describe, then the RFC 0023 storage operations in
// the order the README lists them. Every one is free: the server charges
// nothing for any call.
var manifestActions = []manifestAction{
	{"describe", "Describe this tool: its version, resolver key and actions (a connectivity check).", "read", true,
		"{} to endpoints.invoke", "{tool, version, resolver_did, did_web, actions}", "invoke"},
	{"resolve_intent", "Resolve an RFC 0020 intent (the storage query operation).", "read", true,
		"an intent (application/oap+json) to endpoints.intent, or as the input of endpoints.invoke", "a signed IntentResponse",
		"intent"},
	{"subscribe", "Subscribe with a subscription intent: server-sent events of matching changes.", "read", true,
		"a subscription intent to endpoints.subscribe; Last-Event-ID resumes", "signed events: candidate, deleted, coalesced, rate_limited, end",
		"subscribe"},
	{"storage_put", "Store JSON documents under the caller's tenant.", "write", true,
		"a JSON document, or NDJSON, to endpoints.storage_put", "the signed list of stored references", "storage_put"},
	{"storage_get", "Read a document by content id, optionally projected.", "read", true,
		"GET endpoints.storage_get with ?include= and ?exclude= pointers", "canonical bytes, or a signed projection", "storage_get"},
	{"storage_delete", "Delete one of the caller's documents, with a receipt.", "write", true,
		"DELETE endpoints.storage_delete", "204 No Content", "storage_delete"},
	{"storage_grant", "Let another tenant read one of the caller's documents, with a receipt.", "write", true,
		"PUT endpoints.storage_grant", "204 No Content", "storage_grant"},
	{"storage_revoke", "Withdraw a grant of one of the caller's documents, with a receipt.", "write", true,
		"DELETE endpoints.storage_grant", "204 No Content", "storage_grant"},
	{"storage_grants", "List the tenants one of the caller's documents is granted to.", "read", true,
		"GET endpoints.storage_grants", "the signed {content_id, grantees}", "storage_grants"},
	{"storage_export", "Export the caller's documents and receipt chain, signed.", "read", true,
		"GET endpoints.storage_export", "a signed export", "storage_export"},
	{"storage_import", "Import a signed export into the caller's tenant, with a migration receipt.", "write", false,
		"a signed export to endpoints.storage_import", "a signed import report", "storage_import"},
}

// findAction returns the action named id.
func findAction(id string) (manifestAction, bool) {
	for _, a := range manifestActions {
		if a.id == id {
			return a, true
		}
	}
	return manifestAction{}, false
}

// actionIDs lists every action's id; invocableIDs those invoke runs.
func actionIDs() []string { return ids(func(manifestAction) bool { return true }) }

func invocableIDs() []string {
	return ids(func(a manifestAction) bool { return invokers[a.id] != nil })
}

func ids(keep func(manifestAction) bool) []string {
	var out []string
	for _, a := range manifestActions {
		if keep(a) {
			out = append(out, a.id)
		}
	}
	return out
}

// runDescribe is the describe action: what the manifest says of the
// tool, in a few members, for a client checking that invoke works.
func runDescribe(s *Server, _ http.ResponseWriter, _ *http.Request, _ any) (any, bool) {
	acts := make([]any, len(manifestActions))
	for i, id := range actionIDs() {
		acts[i] = id
	}
	return map[string]any{"tool": "aqlstore", "version": semver(s.cfg.Version), "resolver_did": s.cfg.Signer.DID(),
		"did_web": s.DIDWeb(), "actions": acts}, true
}

// runResolveIntent is resolve_intent through invoke: the input is the
// intent, the output its IntentResponse. A refused intent is answered as
// endpoints.intent answers it (pointers into the input).
func runResolveIntent(s *Server, w http.ResponseWriter, r *http.Request, input any) (any, bool) {
	in, err := aql.ParseValue(input, s.cfg.intentOptions())
	if err != nil {
		s.refuseIntent(w, r, err, nil)
		return nil, false
	}
	if in.Category == aql.CategorySubscription {
		s.writeProblem(w, r, withPointer(badRequest("not_invocable",
			"a subscription intent is a stream: send it to endpoints.subscribe, not through invoke"), "/input/category"))
		return nil, false
	}
	release, ok := s.startQuery(w, r)
	if !ok {
		return nil, false
	}
	defer release()
	opts, p := s.queryOptions(r)
	if p != nil {
		s.writeProblem(w, r, *p)
		return nil, false
	}
	resp, ok := s.resolveIntent(w, r, in, opts)
	if !ok {
		return nil, false
	}
	b, err := resp.MarshalJSON()
	if err == nil {
		var out any
		if out, err = canon.Decode(b, nil); err == nil {
			return out, true
		}
	}
	s.cfg.Logger.Error("encode response", "err", err)
	s.writeProblem(w, r, internalError())
	return nil, false
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
			"cost":            map[string]any{"type": "free"},
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
