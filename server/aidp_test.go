package server

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
	"github.com/aqlstore/aqlstore/store"
)

const (
	mediaIE = "application/aidp+json; msg=IE"
	mediaOB = "application/aidp+json; msg=OB"
)

// ieMessage is the §19.1 intent envelope with another envelope_id and memo.
func ieMessage(envelopeID, memo string) []byte {
	return []byte(`{"aidp_version": "1.0-draft", "msg_type": "IE", "canon": "AIDP-JS-Canon1",
		"payload": {"envelope_id": "` + envelopeID + `", "timestamp": "2026-01-13T09:14:00+02:00",
			"actor_ref": {"agent_id": "agent:alpha", "issuer": "did:example:issuerA", "identity_ref": "urn:aidp:id:issuerA:agent-alpha"},
			"authority_ref": {"cap_id": "cap:alpha:pay-v1", "issuer": "did:example:authA", "cap_ref": "urn:aidp:cap:authA:cap-alpha-pay-v1",
				"rev_ref": "urn:aidp:rev:authA:list-01"},
			"intent_body": {"action": "payment.create", "target": {"domain": "svc:payments", "resource": "acct:merchant-123"},
				"parameters": {"amount": 50, "currency": "EUR", "memo": "` + memo + `"}},
			"constraints": {"not_before": "2026-01-13T09:14:00+02:00", "not_after": "2026-01-13T09:19:00+02:00", "max_uses": 1,
				"risk_tier": "high", "idempotency_key": "idem_3d7f0d"},
			"delegation_chain": [],
			"observability_hooks": {"delivery_mode": "push", "return_to": {"type": "inbox", "ref": "urn:aidp:inbox:agent:alpha"},
				"required_fields": ["envelope_id", "execution_id", "status", "attestation"], "timeout_sec": 30}},
		"proof": {"alg": "ed25519", "kid": "key:agent-alpha-1", "sig": "BASE64URL(...)"}}`)
}

// obMessage is the §19.2 observation with another ids and timestamp
// (seconds past 09:14:00).
func obMessage(envelopeID, executionID, second string) []byte {
	return []byte(`{"aidp_version": "1.0-draft", "msg_type": "OB", "canon": "AIDP-JS-Canon1",
		"payload": {"envelope_id": "` + envelopeID + `", "execution_id": "` + executionID + `",
			"timestamp": "2026-01-13T09:14:` + second + `+02:00", "status": "executed",
			"result": {"payment_id": "pay_7712", "state": "captured"},
			"side_effects": [{"resource": "acct:merchant-123", "delta": {"captured_eur": 50}}],
			"attestation": {"boundary_id": "boundary:payments-gw-1", "issuer": "did:example:paymentsDomain",
				"attest_profile": "AIDP-OB-Attest1", "decision": "authorized", "policy_digest": "sha256:5d3a...e91"}},
		"proof": {"alg": "ed25519", "kid": "key:boundary-payments-1", "sig": "BASE64URL(...)"}}`)
}

// send sends a request with headers (name, value, …) and checks what
// every AIDP response must carry: Cache-Control: no-store (§22.11).
func (ts *testServer) send(method, path, token string, body []byte, headers ...string) (int, http.Header, []byte) {
	ts.t.Helper()
	status, h, b, err := exchange(http.DefaultClient, method, ts.url+path, token, bytes.NewReader(body), headers...)
	if err != nil {
		ts.t.Fatal(err)
	}
	if cc := h.Get("Cache-Control"); cc != "no-store" {
		ts.t.Fatalf("%s %s: Cache-Control %q, want no-store", method, path, cc)
	}
	return status, h, b
}

// post posts an AIDP message with Content-Type ct.
func (ts *testServer) post(path, ct, token string, body []byte, headers ...string) (int, http.Header, []byte) {
	ts.t.Helper()
	return ts.send("POST", path, token, body, append([]string{"Content-Type", ct}, headers...)...)
}

// wantAIDPProblem checks a signed problem document with an AIDP code.
func (ts *testServer) wantAIDPProblem(status int, body []byte, gotStatus int, code, pointer string) map[string]any {
	ts.t.Helper()
	if gotStatus != status {
		ts.t.Fatalf("status %d, want %d: %s", gotStatus, status, body)
	}
	ts.verified(body)
	doc := decode(ts.t, body)
	if doc["error_code"] != code || doc["code"] != strings.ToLower(code) || doc["pointer"] != pointer ||
		len(doc["errors"].([]any)) == 0 {
		ts.t.Fatalf("want %s at %q: %s", code, pointer, body)
	}
	return doc
}

func TestAIDPPutAndPull(t *testing.T) {
	ts := startServer(t, nil)
	status, h, body := ts.post(pathAIDPIntents, mediaIE, tokenA, ieMessage("env-1", "m"))
	if status != http.StatusCreated || !strings.HasPrefix(h.Get("Location"), pathDocuments+"/") {
		t.Fatalf("put IE: %d %v %s", status, h, body)
	}
	ts.verified(body)
	if ack := decode(t, body); ack["created"] != true || ack["envelope_id"] != "env-1" || ack["observations"] != pathAIDPObservations+"/env-1" {
		t.Fatalf("IE ack: %s", body)
	}
	// The identical envelope again is idempotent: 200, nothing new.
	status, _, body = ts.post(pathAIDPIntents, "application/json", tokenA, ieMessage("env-1", "m"))
	if status != http.StatusOK || decode(t, body)["created"] != false {
		t.Fatalf("put IE again: %d %s", status, body)
	}
	if s, _, b := ts.send("GET", pathAIDPObservations+"/env-1", tokenA, nil); s != http.StatusNotFound {
		t.Fatalf("no observation yet: %d %s", s, b)
	}
	for _, ob := range [][]byte{obMessage("env-1", "exec-2", "09"), obMessage("env-1", "exec-1", "02")} {
		status, h, body = ts.post(pathAIDPObservations, mediaOB, tokenA, ob, "X-AIDP-Envelope-ID", "env-1")
		ack := decode(t, body)
		if status != http.StatusCreated || h.Get("Location") != pathAIDPObservations+"/env-1" || ack["quarantined"] != false {
			t.Fatalf("put OB: %d %v %s", status, h, body)
		}
	}
	// Latest by payload timestamp, not by arrival: exec-2 (09:14:09).
	status, h, body = ts.send("GET", pathAIDPObservations+"/env-1", tokenA, nil)
	if status != 200 || h.Get("Content-Type") != mediaOB || h.Get("Aqlstore-Execution-Id") != "exec-2" ||
		h.Get("Aqlstore-Quarantined") != "false" || len(h.Get("Aqlstore-Audit-Digest")) != 64 {
		t.Fatalf("latest: %d %v %s", status, h, body)
	}
	if _, err := aidp.ParseType(body, aidp.OB, nil); err != nil {
		t.Fatalf("latest is not an OB: %v\n%s", err, body)
	}
	status, _, body = ts.send("GET", pathAIDPObservations+"/env-1?mode=all", tokenA, nil)
	if status != 200 {
		t.Fatalf("mode=all: %d %s", status, body)
	}
	ts.verified(body)
	all := decode(t, body)
	items, meta := all["items"].([]any), all["observations"].([]any)
	if len(items) != 2 || len(meta) != 2 || meta[0].(map[string]any)["execution_id"] != "exec-1" ||
		items[1].(map[string]any)["payload"].(map[string]any)["execution_id"] != "exec-2" {
		t.Fatalf("mode=all: %s", body)
	}
	if s, _, b := ts.send("GET", pathAIDPObservations+"/env-1?mode=every", tokenA, nil); s != 400 ||
		!strings.Contains(string(b), "mode must be") {
		t.Fatalf("bad mode: %d %s", s, b)
	}
	status, _, body = ts.send("GET", pathAIDPInbox, tokenA, nil)
	if status != 200 {
		t.Fatalf("inbox: %d %s", status, body)
	}
	ts.verified(body)
	if page := decode(t, body); len(page["items"].([]any)) != 2 || page["next_cursor"] != nil {
		t.Fatalf("inbox holds the two observations, not the envelope: %s", body)
	}
}

// Tenant B sees none of tenant A's messages: not by envelope id, not in
// its inbox, not by binding to A's envelope; nothing in the answers
// tells that they exist.
func TestAIDPTenantIsolation(t *testing.T) {
	ts := startServer(t, nil)
	if s, _, b := ts.post(pathAIDPIntents, mediaIE, tokenA, ieMessage("env-a", "a")); s != 201 {
		t.Fatalf("A's IE: %d %s", s, b)
	}
	if s, _, b := ts.post(pathAIDPObservations, mediaOB, tokenA, obMessage("env-a", "exec-a", "02")); s != 201 {
		t.Fatalf("A's OB: %d %s", s, b)
	}
	for _, path := range []string{"/env-a", "/env-a?mode=all"} {
		s, h, b := ts.send("GET", pathAIDPObservations+path, tokenB, nil)
		if s != http.StatusNotFound || h.Get("Aqlstore-Owner") != "" || bytes.Contains(b, []byte("exec-a")) ||
			bytes.Contains(b, []byte(tenantA)) {
			t.Fatalf("B reads A's observation %s: %d %v %s", path, s, h, b)
		}
		_, _, none := ts.send("GET", pathAIDPObservations+strings.Replace(path, "env-a", "env-z", 1), tokenB, nil)
		if d, dn := decode(t, b), decode(t, none); d["code"] != dn["code"] ||
			strings.Replace(d["detail"].(string), "env-a", "env-z", 1) != dn["detail"] || len(d) != len(dn) {
			t.Fatalf("A's envelope answers unlike a missing one:\n%s\n%s", b, none)
		}
	}
	s, _, b := ts.send("GET", pathAIDPInbox+"?limit=100", tokenB, nil)
	if page := decode(t, b); s != 200 || len(page["items"].([]any)) != 0 || len(page) != 3 {
		t.Fatalf("B's inbox: %d %s", s, b)
	}
	// B's observation does not bind to A's envelope.
	s, _, b = ts.post(pathAIDPObservations, mediaOB, tokenB, obMessage("env-a", "exec-b", "03"))
	ts.wantAIDPProblem(http.StatusConflict, b, s, codeUnboundObservation, "/payload/envelope_id")
	if bytes.Contains(b, []byte(tenantA)) {
		t.Fatalf("the refusal names A: %s", b)
	}
	// B's own envelope with the same id is B's, not a replay of A's.
	if s, _, b := ts.post(pathAIDPIntents, mediaIE, tokenB, ieMessage("env-a", "b")); s != 201 {
		t.Fatalf("B's IE: %d %s", s, b)
	}
	if s, _, b := ts.post(pathAIDPObservations, mediaOB, tokenB, obMessage("env-a", "exec-b", "03")); s != 201 {
		t.Fatalf("B's OB: %d %s", s, b)
	}
	s, h, b := ts.send("GET", pathAIDPObservations+"/env-a?mode=all", tokenB, nil)
	if items := decode(t, b)["items"].([]any); s != 200 || len(items) != 1 || bytes.Contains(b, []byte("exec-a")) {
		t.Fatalf("B's observations: %d %v %s", s, h, b)
	}
	s, _, b = ts.send("GET", pathAIDPInbox, tokenA, nil)
	if items := decode(t, b)["items"].([]any); s != 200 || len(items) != 1 || bytes.Contains(b, []byte("exec-b")) {
		t.Fatalf("A's inbox: %d %s", s, b)
	}
	// Pull mode needs an authenticated caller (§22.5).
	for _, path := range []string{pathAIDPInbox, pathAIDPObservations + "/env-a"} {
		if s, h, _ := ts.send("GET", path, "", nil); s != http.StatusUnauthorized || h.Get("WWW-Authenticate") == "" {
			t.Fatalf("anonymous %s: %d", path, s)
		}
	}
}

func TestAIDPReplay(t *testing.T) {
	ts := startServer(t, nil)
	if s, _, b := ts.post(pathAIDPIntents, mediaIE, tokenA, ieMessage("env-r", "first")); s != 201 {
		t.Fatalf("IE: %d %s", s, b)
	}
	s, _, b := ts.post(pathAIDPIntents, mediaIE, tokenA, ieMessage("env-r", "second"))
	doc := ts.wantAIDPProblem(http.StatusConflict, b, s, aidp.CodeReplayDetected, "/payload/envelope_id")
	if doc["envelope_id"] != "env-r" || doc["type"] != problemTypePrefix+"replay_detected" {
		t.Fatalf("replay problem: %s", b)
	}
	// An AIDP client that accepts PD gets the Problem Details message
	// itself, its payload signed by the server's key (§17.3).
	s, h, b := ts.post(pathAIDPIntents, mediaIE, tokenA, ieMessage("env-r", "third"),
		"Accept", "application/aidp+json; msg=OB, application/aidp+json; msg=PD")
	if s != http.StatusConflict || h.Get("Content-Type") != "application/aidp+json; msg=PD" {
		t.Fatalf("replay as PD: %d %v %s", s, h, b)
	}
	pd, err := aidp.ParseType(b, aidp.PD, nil)
	if err != nil || pd.Problem.ErrorCode != aidp.CodeReplayDetected || pd.Problem.EnvelopeID != "env-r" {
		t.Fatalf("PD: %v\n%s", err, b)
	}
	payload, _ := canon.Lookup(pd.Canonical(), "payload")
	sig, _ := base64.RawURLEncoding.DecodeString(pd.Proof.Sig)
	if !ed25519.Verify(ts.signer.PublicKey(), payload, sig) || pd.Proof.Kid != ts.signer.KeyID() {
		t.Fatalf("PD proof does not verify: %s", b)
	}
	// An observation is unique per (envelope_id, execution_id).
	if s, _, b := ts.post(pathAIDPObservations, mediaOB, tokenA, obMessage("env-r", "exec-1", "02")); s != 201 {
		t.Fatalf("OB: %d %s", s, b)
	}
	s, _, b = ts.post(pathAIDPObservations, mediaOB, tokenA, obMessage("env-r", "exec-1", "05"))
	if s != http.StatusConflict || decode(t, b)["error_code"] != aidp.CodeReplayDetected {
		t.Fatalf("OB replay: %d %s", s, b)
	}
	if s, _, b := ts.send("GET", pathAIDPObservations+"/env-r?mode=all", tokenA, nil); s != 200 ||
		len(decode(t, b)["items"].([]any)) != 1 {
		t.Fatalf("the replayed observation was stored: %d %s", s, b)
	}
}

// An observation for an envelope not stored is refused (409), or with
// ?unbound=quarantine stored and flagged until its envelope arrives.
func TestAIDPQuarantine(t *testing.T) {
	ts := startServer(t, nil)
	s, _, b := ts.post(pathAIDPObservations, mediaOB, tokenA, obMessage("env-q", "exec-1", "02"))
	ts.wantAIDPProblem(http.StatusConflict, b, s, codeUnboundObservation, "/payload/envelope_id")
	if !strings.Contains(decode(t, b)["detail"].(string), "unbound=quarantine") {
		t.Fatalf("the refusal does not say how to quarantine: %s", b)
	}
	s, _, b = ts.post(pathAIDPObservations+"?unbound=quarantine", mediaOB, tokenA, obMessage("env-q", "exec-1", "02"))
	if ack := decode(t, b); s != http.StatusCreated || ack["quarantined"] != true || ack["created"] != true {
		t.Fatalf("quarantine: %d %s", s, b)
	}
	s, h, b := ts.send("GET", pathAIDPObservations+"/env-q", tokenA, nil)
	if s != 200 || h.Get("Aqlstore-Quarantined") != "true" || h.Get("Aqlstore-Audit-Digest") != "" {
		t.Fatalf("quarantined observation: %d %v %s", s, h, b)
	}
	if s, _, b := ts.post(pathAIDPIntents, mediaIE, tokenA, ieMessage("env-q", "q")); s != 201 {
		t.Fatalf("IE: %d %s", s, b)
	}
	s, h, b = ts.send("GET", pathAIDPObservations+"/env-q", tokenA, nil)
	if s != 200 || h.Get("Aqlstore-Quarantined") != "false" || len(h.Get("Aqlstore-Audit-Digest")) != 64 {
		t.Fatalf("bound observation: %d %v %s", s, h, b)
	}
	for _, path := range []string{pathAIDPObservations + "?unbound=maybe", pathAIDPIntents + "?unbound=quarantine"} {
		if s, _, b := ts.post(path, "application/json", tokenA, obMessage("env-q", "exec-9", "02")); s != 400 ||
			!strings.Contains(string(b), "unbound") {
			t.Fatalf("%s: %d %s", path, s, b)
		}
	}
}

func TestAIDPRefusals(t *testing.T) {
	ts := startServer(t, nil)
	ie := ieMessage("env-m", "m")
	for _, c := range []struct {
		name, path, ct string
		body           []byte
		headers        []string
		status         int
		code, pointer  string
	}{
		{"text/plain", pathAIDPIntents, "text/plain", ie, nil, 415, aidp.CodeUnsupportedMediaType, ""},
		{"no content type", pathAIDPIntents, "", ie, nil, 415, aidp.CodeUnsupportedMediaType, ""},
		{"OB media to intents", pathAIDPIntents, mediaOB, ie, nil, 415, aidp.CodeUnsupportedMediaType, ""},
		{"unknown msg", pathAIDPIntents, "application/aidp+json; msg=XX", ie, nil, 415, aidp.CodeUnsupportedMediaType, ""},
		{"CBOR", pathAIDPIntents, "application/aidp+cbor; msg=IE", ie, nil, 415, aidp.CodeUnsupportedMediaType, ""},
		{"latin-1", pathAIDPIntents, "application/json; charset=iso-8859-1", ie, nil, 415, aidp.CodeUnsupportedMediaType, ""},
		{"not JSON", pathAIDPIntents, mediaIE, []byte(`{"aidp_version": `), nil, 400, aidp.CodeMalformedMessage, ""},
		{"not UTF-8", pathAIDPIntents, mediaIE, bytes.Replace(ie, []byte(`"IE"`), []byte("\"I\xff\""), 1),
			nil, 400, aidp.CodeMalformedMessage, ""},
		{"duplicate member", pathAIDPIntents, mediaIE, bytes.Replace(ie, []byte(`"msg_type": "IE",`), []byte(`"msg_type": "IE", "msg_type": "IE",`), 1),
			nil, 400, aidp.CodeMalformedMessage, "/msg_type"},
		{"missing actor_ref", pathAIDPIntents, mediaIE, bytes.Replace(ie, []byte(`"actor_ref"`), []byte(`"actor"`), 1),
			nil, 400, aidp.CodeMalformedMessage, "/payload/actor"},
		{"OB to intents", pathAIDPIntents, "application/json", obMessage("env-m", "e", "02"), nil, 400, aidp.CodeMalformedMessage, "/msg_type"},
		{"version", pathAIDPIntents, mediaIE, bytes.Replace(ie, []byte(`"1.0-draft"`), []byte(`"9.9"`), 1),
			nil, 400, aidp.CodeUnsupportedVersion, "/aidp_version"},
		{"envelope header", pathAIDPIntents, mediaIE, ie, []string{"X-AIDP-Envelope-ID", "env-other"},
			400, aidp.CodeMalformedMessage, "/payload/envelope_id"},
		{"broken chain", pathAIDPIntents, mediaIE, bytes.Replace(ie, []byte(`"delegation_chain": []`),
			[]byte(`"delegation_chain": [{"cap_id": "cap:x", "issuer": "did:example:authA", "cap_ref": "urn:x", "parent_cap_id": "cap:nowhere",
				"rev_ref": "urn:r", "link_proof": {"alg": "ed25519", "kid": "k", "sig": "s"}}]`), 1),
			nil, 403, aidp.CodeInvalidDelegationChain, ""},
	} {
		s, _, b := ts.post(c.path, c.ct, tokenA, c.body, c.headers...)
		if s != c.status {
			t.Errorf("%s: %d, want %d: %s", c.name, s, c.status, b)
			continue
		}
		ts.verified(b)
		doc := decode(t, b)
		if doc["error_code"] != c.code || (c.pointer != "" && !strings.HasPrefix(doc["pointer"].(string), c.pointer)) {
			t.Errorf("%s: want %s at %s: %s", c.name, c.code, c.pointer, b)
		}
	}
	if s, _, b := ts.post(pathAIDPIntents, mediaIE, "", ie); s != http.StatusUnauthorized {
		t.Fatalf("anonymous put: %d %s", s, b)
	}
	s, _, b := ts.post(pathAIDPIntents+"?visibility=public", mediaIE, tokenB, ie)
	if s != http.StatusForbidden || decode(t, b)["code"] != "forbidden" {
		t.Fatalf("public put by a tenant that is no public writer: %d %s", s, b)
	}
	s, _, b = ts.post(pathAIDPIntents, mediaIE, tokenA, bytes.Repeat([]byte(" "), int(DefaultMaxBodyBytes)+1))
	if s != http.StatusRequestEntityTooLarge {
		t.Fatalf("too large: %d %s", s, b)
	}
	for _, c := range []struct{ method, path, allow string }{
		{"PUT", pathAIDPInbox, "GET"}, {"GET", pathAIDPIntents, "POST"}, {"DELETE", pathAIDPObservations + "/env-m", "GET"},
	} {
		if s, h, b := ts.send(c.method, c.path, tokenA, nil); s != http.StatusMethodNotAllowed || h.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d %v %s", c.method, c.path, s, h, b)
		}
	}
}

func TestAIDPInboxPages(t *testing.T) {
	ts := startServer(t, nil)
	if s, _, b := ts.post(pathAIDPIntents, mediaIE, tokenA, ieMessage("env-p", "p")); s != 201 {
		t.Fatalf("IE: %d %s", s, b)
	}
	for _, exec := range []string{"e1", "e2", "e3", "e4", "e5"} {
		if s, _, b := ts.post(pathAIDPObservations, mediaOB, tokenA, obMessage("env-p", exec, "02")); s != 201 {
			t.Fatalf("OB: %d %s", s, b)
		}
	}
	var seen []string
	cursor, resume, pages := "", "", 0
	for {
		s, _, b := ts.send("GET", pathAIDPInbox+"?limit=2&cursor="+url.QueryEscape(cursor), tokenA, nil)
		if s != 200 {
			t.Fatalf("page: %d %s", s, b)
		}
		ts.verified(b)
		page := decode(t, b)
		resume, _ = page["resume_cursor"].(string)
		for _, it := range page["items"].([]any) {
			seen = append(seen, it.(map[string]any)["payload"].(map[string]any)["execution_id"].(string))
		}
		pages++
		next, _ := page["next_cursor"].(string)
		if next == "" {
			break
		}
		// Another tenant's use of the cursor shows that tenant's messages only.
		if s, _, b := ts.send("GET", pathAIDPInbox+"?cursor="+url.QueryEscape(next), tokenB, nil); s != 200 ||
			len(decode(t, b)["items"].([]any)) != 0 {
			t.Fatalf("B with A's cursor: %d %s", s, b)
		}
		cursor = next
	}
	if pages != 3 || strings.Join(seen, ",") != "e1,e2,e3,e4,e5" {
		t.Fatalf("pages %d: %v", pages, seen)
	}
	// The last page's resume_cursor polls for what arrives later.
	if s, _, b := ts.post(pathAIDPObservations, mediaOB, tokenA, obMessage("env-p", "e6", "02")); s != 201 {
		t.Fatalf("OB: %d %s", s, b)
	}
	s, _, b := ts.send("GET", pathAIDPInbox+"?cursor="+url.QueryEscape(resume), tokenA, nil)
	items, _ := decode(t, b)["items"].([]any)
	if s != 200 || resume == "" || len(items) != 1 ||
		items[0].(map[string]any)["payload"].(map[string]any)["execution_id"] != "e6" {
		t.Fatalf("polling with the last page's resume_cursor %q: %d %s", resume, s, b)
	}
	for _, q := range []string{"limit=0", "limit=101", "limit=ten", "limit=-1"} {
		s, _, b := ts.send("GET", pathAIDPInbox+"?"+q, tokenA, nil)
		if doc := decode(t, b); s != 400 || doc["parameter"] != "limit" || !strings.Contains(doc["detail"].(string), "limit") {
			t.Errorf("%s: %d %s", q, s, b)
		}
	}
	for _, c := range []string{"garbage", "AQAAAA", "AgAAAAE"} {
		s, _, b := ts.send("GET", pathAIDPInbox+"?cursor="+c, tokenA, nil)
		if s != 400 || decode(t, b)["code"] != "invalid_cursor" || bytes.Contains(b, []byte(c)) {
			t.Errorf("cursor %s: %d %s", c, s, b)
		}
	}
}

// A PAIRL message is stored as text: GET sends its JSON view as JSON, or
// its canonical text when asked for text.
func TestGetPAIRL(t *testing.T) {
	ts := startServer(t, nil)
	text := "@v 1\n@mid ref:msg:s1\n@ts 2026-01-31T10:00:00Z\n\nreq{t=research} @rid=a1\n"
	ref, err := ts.st.Put(store.WithPrincipal(t.Context(), store.Public), store.Document{Body: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	id := ref.ID.String()
	s, h, b := ts.send("GET", pathDocuments+"/"+id, "", nil)
	if s != 200 || h.Get("Content-Type") != contentJSON || h.Get("ETag") != `"`+id+`+view"` || h.Get("Vary") != "Accept" ||
		decode(t, b)["records"] == nil {
		t.Fatalf("JSON view: %d %v %s", s, h, b)
	}
	for _, accept := range []string{"text/plain", "application/vnd.pairl+utf8, application/json"} {
		s, h, b = ts.send("GET", pathDocuments+"/"+id, "", nil, "Accept", accept)
		if s != 200 || !strings.HasPrefix(h.Get("Content-Type"), strings.Split(accept, ",")[0]) || h.Get("ETag") != `"`+id+`"` ||
			sha256Hex(string(b)) != id || !strings.HasPrefix(string(b), "@v 1\n") {
			t.Fatalf("text (%s): %d %v %q", accept, s, h, b)
		}
	}
	s, h, b = ts.send("GET", pathDocuments+"?kind=pairl&key=ref:msg:s1", "", nil, "Accept", "application/json, text/plain")
	if s != 200 || h.Get("Content-Type") != contentJSON || decode(t, b)["records"] == nil {
		t.Fatalf("lookup: %d %v %s", s, h, b)
	}
}
