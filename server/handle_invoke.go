package server

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// handleInvoke answers POST /oap/invoke (OAP-CORE §6): a request envelope
// of oap-request-envelope.schema.json naming one of the manifest's
// actions. describe and resolve_intent run here; the storage actions
// have their own endpoints, which the refusal names. The answer is a
// signed response envelope with the receipt of the call, which the audit
// endpoint lists. The envelope's signature is not verified: principal_did
// and agent_did are recorded as the caller asserts them, and the call
// reads as the authenticated caller (bearer token or signed request), as
// every other endpoint does.
func (s *Server) handleInvoke(w http.ResponseWriter, r *http.Request) {
	if p := checkMedia(r, contentOAP, contentJSON); p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	b, p := readBody(w, r, s.cfg.MaxBodyBytes)
	if p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	env, p := parseEnvelope(b)
	name, named := env["action"].(string)
	act, ok := findAction(name)
	run := invokers[name]
	switch {
	case named && !ok: // the action is what the request is for: unknown, it is not found, whatever else is amiss
		s.writeProblem(w, r, notFound(fmt.Sprintf("action %q is not one of this tool's actions (%s); the manifest lists them",
			name, strings.Join(actionIDs(), ", "))))
		return
	case p != nil:
		s.writeProblem(w, r, *p)
		return
	case !ok:
		s.writeProblem(w, r, notFound(fmt.Sprintf("action %q is not one of this tool's actions (%s); the manifest lists them",
			name, strings.Join(actionIDs(), ", "))))
		return
	case run == nil:
		s.writeProblem(w, r, withPointer(badRequest("not_invocable", fmt.Sprintf(
			"%s is served at its own endpoint (%s in the manifest's endpoints), not through invoke; invoke runs %s",
			act.id, act.endpoint, strings.Join(invocableIDs(), " and "))), "/action"))
		return
	}
	out, ok := run(s, w, r, env["input"])
	if !ok {
		return // run has answered
	}
	s.answerInvocation(w, r, env, act, out)
}

// answerInvocation records the call's receipt and writes the response
// envelope (oap-response-envelope.schema.json, plus receipt_id, where
// OAP's behaviour suite reads it).
func (s *Server) answerInvocation(w http.ResponseWriter, r *http.Request, env map[string]any, act manifestAction, out any) {
	principal, _ := env["principal_did"].(string)
	agent, _ := env["agent_did"].(string)
	rec := s.invocations.append(s, callerOf(r).principal(), invocation{principal: principal, agent: agent,
		action: act.id, version: semver(s.cfg.Version), input: env["input"], output: out})
	rid := rec["receipt_id"]
	s.writeSigned(w, http.StatusOK, contentOAP, map[string]any{
		"oap_version": "1.0", "request_id": env["request_id"], "response_id": "urn:oap:response:" + randomID(),
		"timestamp": s.cfg.Now().UTC().Format(time.RFC3339Nano), "status": "ok", "output": out,
		"receipt": map[string]any{"id": rid}, "receipt_id": rid,
	})
}

// withPointer adds the problems member naming where in the request the
// fault is, as intent refusals carry it.
func withPointer(p problem, pointer string) problem {
	p.extra = map[string]any{"problems": []any{map[string]any{"pointer": pointer, "code": p.code, "message": p.detail}}}
	return p
}

var (
	ulidPattern = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)
)

// envelopeFields are the members oap-request-envelope.schema.json
// requires, with a check of each and what it wants.
var envelopeFields = []struct {
	name, want string
	ok         func(any) bool
}{
	{"oap_version", `"1.0"`, func(v any) bool { return v == "1.0" }},
	{"request_id", "a ULID (26 characters of Crockford base32)", matchString(ulidPattern)},
	{"timestamp", "an RFC 3339 timestamp", func(v any) bool { s, _ := v.(string); _, ok := aql.ParseInstant(s); return ok }},
	{"principal_did", "a DID", matchString(didPattern)},
	{"agent_did", "a DID", matchString(didPattern)},
	{"action", "the id of one of the manifest's actions", func(v any) bool { _, ok := v.(string); return ok }},
	{"input", "the action's input", func(v any) bool { return true }},
	{"context", "an object with locale, currency, jurisdiction_user and jurisdiction_agent", isObject},
	{"signature", `an object {"alg", "kid", "value"}`, isObject},
}

func matchString(re *regexp.Regexp) func(any) bool {
	return func(v any) bool { s, ok := v.(string); return ok && re.MatchString(s) }
}

func isObject(v any) bool { _, ok := v.(map[string]any); return ok }

// parseEnvelope decodes a request envelope and checks the members the
// schema requires; every fault is listed with its pointer. The envelope
// is returned with the problem when the body is a JSON object.
func parseEnvelope(b []byte) (map[string]any, *problem) {
	v, err := canon.Decode(b, nil)
	if err != nil {
		p := badRequest("invalid_envelope", "the body is not a JSON request envelope: "+err.Error())
		return nil, &p
	}
	env, ok := v.(map[string]any)
	if !ok {
		p := badRequest("invalid_envelope", "the body must be a JSON object, an OAP request envelope")
		return nil, &p
	}
	var problems []any
	for _, f := range envelopeFields {
		got, present := env[f.name]
		msg := ""
		switch {
		case !present:
			msg = "add member " + f.name + ": " + f.want
		case !f.ok(got):
			msg = f.name + " must be " + f.want
		default:
			continue
		}
		problems = append(problems, map[string]any{"pointer": "/" + f.name, "code": "invalid_envelope", "message": msg})
	}
	if len(problems) == 0 {
		return env, nil
	}
	p := badRequest("invalid_envelope", strconv.Itoa(len(problems))+" problem(s) in the request envelope (oap-request-envelope.schema.json); see problems")
	p.extra = map[string]any{"problems": problems}
	return env, &p
}

// handleAudit answers GET /oap/audit (OAP-CORE §11): the receipts of the
// caller's invocations, oldest first, as {"receipts": [...]}, signed.
// ?principal_did= keeps those of one principal, ?limit= (1–1000, default
// 100) the last so many. A caller sees its own tenant's receipts only;
// anonymous callers share the public one.
func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 100
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxInvocationReceipts {
			s.writeProblem(w, r, badRequest("bad_limit", fmt.Sprintf("?limit=%s: give a whole number from 1 to %d", l, maxInvocationReceipts)))
			return
		}
		limit = n
	}
	list := s.invocations.list(callerOf(r).principal(), q.Get("principal_did"), limit)
	s.writeSigned(w, http.StatusOK, contentJSON, map[string]any{"receipts": list})
}
