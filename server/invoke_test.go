package server

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// envelope returns an OAP request envelope calling action with input.
func envelope(action, input, principal string) []byte {
	return []byte(`{"oap_version": "1.0", "request_id": "01J0000000000000000000000A",
		"timestamp": "` + time.Now().UTC().Format(time.RFC3339) + `",
		"principal_did": "` + principal + `", "agent_did": "did:web:agent.example",
		"action": "` + action + `", "input": ` + input + `,
		"context": {"locale": "en-US", "currency": "EUR", "jurisdiction_user": "DE", "jurisdiction_agent": "DE"},
		"signature": {"alg": "EdDSA", "kid": "k", "value": "v"}}`)
}

// TestInvokeAndAudit: describe through endpoints.invoke answers a signed
// response envelope with a receipt; the audit endpoint lists the receipt
// to the caller's tenant only, chained to the one before and signed by
// the server's key.
func TestInvokeAndAudit(t *testing.T) {
	ts := startServer(t, nil)
	var ids []string
	for _, principal := range []string{"did:web:alice.example", "did:web:bob.example"} {
		status, _, body := ts.do("POST", pathInvoke, contentOAP, "", envelope("describe", "{}", principal))
		if status != 200 {
			t.Fatalf("invoke describe: %d %s", status, body)
		}
		ts.verified(body)
		resp := canonDoc(t, body)
		out, _ := resp["output"].(map[string]any)
		rid, _ := resp["receipt_id"].(string)
		if resp["status"] != "ok" || resp["request_id"] != "01J0000000000000000000000A" || resp["oap_version"] != "1.0" ||
			out["resolver_did"] != ts.signer.DID() || !strings.HasPrefix(rid, "urn:oap:receipt:") ||
			resp["receipt"].(map[string]any)["id"] != rid {
			t.Fatalf("response envelope %s", body)
		}
		ids = append(ids, rid)
	}
	status, _, body := ts.do("GET", pathAudit+"?principal_did=did:web:bob.example", "", "", nil)
	if status != 200 {
		t.Fatalf("audit: %d %s", status, body)
	}
	ts.verified(body)
	list := canonDoc(t, body)["receipts"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["receipt_id"] != ids[1] {
		t.Fatalf("audit of bob: %s", body)
	}
	_, _, body = ts.do("GET", pathAudit, "", "", nil)
	all := canonDoc(t, body)["receipts"].([]any)
	if len(all) != 2 {
		t.Fatalf("audit: want 2 receipts, got %s", body)
	}
	first, second := all[0].(map[string]any), all[1].(map[string]any)
	if first["previous_receipt_hash"] != "genesis" || second["previous_receipt_hash"] != receiptHash(first) {
		t.Fatalf("chain: %v then %v, want genesis then %s", first["previous_receipt_hash"], second["previous_receipt_hash"], receiptHash(first))
	}
	for _, rec := range []map[string]any{first, second} {
		checkReceiptSignature(t, rec, ts.signer.PublicKey())
	}
	// Tenant B sees none of the anonymous callers' receipts.
	_, _, body = ts.do("GET", pathAudit, "", tokenB, nil)
	if n := len(canonDoc(t, body)["receipts"].([]any)); n != 0 {
		t.Fatalf("tenant B sees %d receipts of others: %s", n, body)
	}
}

// receiptHash is what the next receipt names: sha256 of the RFC 8785
// form without signatures.
func receiptHash(rec map[string]any) string {
	body := map[string]any{}
	for k, v := range rec {
		if k != "signatures" {
			body[k] = v
		}
	}
	sum := sha256.Sum256(canon.AppendValue(nil, body))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func checkReceiptSignature(t *testing.T, rec map[string]any, pub ed25519.PublicKey) {
	t.Helper()
	sigs, _ := rec["signatures"].([]any)
	if len(sigs) != 1 {
		t.Fatalf("receipt signatures %v", rec["signatures"])
	}
	sig, err := base64.RawURLEncoding.DecodeString(sigs[0].(map[string]any)["value"].(string))
	body := map[string]any{}
	for k, v := range rec {
		if k != "signatures" {
			body[k] = v
		}
	}
	if err != nil || !ed25519.Verify(pub, canon.AppendValue(nil, body), sig) {
		t.Fatalf("receipt %v: signature does not verify", rec["receipt_id"])
	}
}

// TestInvokeRefusals: an unknown action is 404 whatever else the
// envelope lacks; a malformed envelope is 400 with a pointer per fault;
// a storage action is served at its own endpoint, which the 400 names.
func TestInvokeRefusals(t *testing.T) {
	ts := startServer(t, nil)
	cases := []struct {
		body   string
		status int
		want   string
	}{
		{`{"oap_version": "1.0", "action": "no_such_action", "input": {}}`, 404, `no_such_action`},
		{`{"oap_version": "1.0"}`, 400, `"pointer":"/request_id"`},
		{`{"oap_version": "2.0"}`, 400, `"pointer":"/oap_version"`},
		{string(envelope("describe", "{}", "alice")), 400, `"pointer":"/principal_did"`},
		{string(envelope("storage_put", "{}", "did:web:a.example")), 400, `"pointer":"/action"`},
		{`[1]`, 400, `must be a JSON object`},
		{`{"a":`, 400, `not a JSON request envelope`},
	}
	for _, c := range cases {
		status, _, body := ts.do("POST", pathInvoke, contentOAP, "", []byte(c.body))
		if status != c.status || !bytes.Contains(body, []byte(c.want)) {
			t.Errorf("%s: %d %s; want %d with %s", c.body, status, body, c.status, c.want)
		}
	}
	for _, c := range []struct{ method, path, allow string }{
		{"GET", pathInvoke, "POST"}, {"POST", pathAudit, "GET"}, {"DELETE", pathConformance, "GET"},
	} {
		if status, h, _ := ts.do(c.method, c.path, "", "", nil); status != 405 || h.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d, Allow %q; want 405, Allow %s", c.method, c.path, status, h.Get("Allow"), c.allow)
		}
	}
}

// TestInvokeResolveIntent: resolve_intent through invoke answers the
// IntentResponse endpoints.intent answers, as the envelope's output.
func TestInvokeResolveIntent(t *testing.T) {
	ts := startServer(t, nil)
	ts.putPublic(`{"name": "alpha", "kind": "probe"}`)
	in := intent("knowledge", `{"path": "/kind", "operator": "eq", "value": "probe"}`, "")
	status, _, body := ts.do("POST", pathInvoke, contentOAP, "", envelope("resolve_intent", string(in), "did:web:a.example"))
	if status != 200 {
		t.Fatalf("invoke resolve_intent: %d %s", status, body)
	}
	out, _ := canonDoc(t, body)["output"].(map[string]any)
	if cands, _ := out["candidates"].([]any); len(cands) != 1 {
		t.Fatalf("output %s", body)
	}
	bad := intent("knowledge", `{"path": "kind", "operator": "eq", "value": "probe"}`, "")
	status, _, body = ts.do("POST", pathInvoke, contentOAP, "", envelope("resolve_intent", string(bad), "did:web:a.example"))
	if status != 400 || !bytes.Contains(body, []byte(`/constraints/path`)) {
		t.Fatalf("a bad intent through invoke: %d %s", status, body)
	}
}

// TestInvokeEnvelopesValidate: the response envelope (without the
// receipt_id the OAP behaviour suite reads) and the receipts validate
// against the published schemas; every action is free.
func TestInvokeEnvelopesValidate(t *testing.T) {
	// The suite's copy of the schemas holds the envelope and receipt ones.
	dir := filepath.Join("..", "..", "shared", "vectors", "oap-test-suite", "schemas", "v1.0")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared is absent: the envelope schema check is skipped")
	}
	ts := startServer(t, nil)
	_, _, body := ts.do("POST", pathInvoke, contentOAP, "", envelope("describe", "{}", "did:web:a.example"))
	resp := canonDoc(t, body)
	delete(resp, "receipt_id")
	validate(t, oapSchema(t, dir, true, "oap-response-envelope.schema.json"), resp)
	_, _, body = ts.do("GET", pathAudit, "", "", nil)
	for _, rec := range canonDoc(t, body)["receipts"].([]any) {
		validate(t, oapSchema(t, dir, true, "oap-receipt.schema.json", "oap-commerce-primitive.schema.json"), rec)
	}
	_, _, body = ts.do("GET", pathManifest, "", "", nil)
	m := canonDoc(t, body)
	for _, a := range m["actions"].([]any) {
		if cost, _ := a.(map[string]any)["cost"].(map[string]any); cost["type"] != "free" {
			t.Fatalf("action %v costs %v", a.(map[string]any)["id"], cost)
		}
	}
	rec, _ := m["accountability"].(map[string]any)["recovery"].(map[string]any)
	if rec["export_endpoint"] != pathExport {
		t.Fatalf("accountability %v", m["accountability"])
	}
}

func validate(t *testing.T, sch *jsonschema.Schema, v any) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(canon.AppendValue(nil, v)))
	if err == nil {
		err = sch.Validate(inst)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, canon.AppendValue(nil, v))
	}
}

// TestInvocationReceiptsKeepTheLast1000: past maxInvocationReceipts the
// oldest receipt drops off; the chain goes on unbroken, and ?limit=
// keeps the newest.
func TestInvocationReceiptsKeepTheLast1000(t *testing.T) {
	ts := startServer(t, nil)
	var ids []any
	for i := 0; i <= maxInvocationReceipts; i++ {
		rec := ts.srv.invocations.append(ts.srv, "did:web:t.example", invocation{principal: "did:web:p.example",
			agent: "did:web:a.example", action: "describe", input: map[string]any{}, output: map[string]any{}})
		ids = append(ids, rec["receipt_id"])
	}
	list := ts.srv.invocations.list("did:web:t.example", "", maxInvocationReceipts)
	if len(list) != maxInvocationReceipts || list[0].(map[string]any)["receipt_id"] != ids[1] ||
		list[len(list)-1].(map[string]any)["receipt_id"] != ids[maxInvocationReceipts] {
		t.Fatalf("kept %d receipts, first %v; want %d from %v", len(list), list[0].(map[string]any)["receipt_id"], maxInvocationReceipts, ids[1])
	}
	for i := 1; i < len(list); i++ {
		if prev, rec := list[i-1].(map[string]any), list[i].(map[string]any); rec["previous_receipt_hash"] != receiptHash(prev) {
			t.Fatalf("receipt %d does not name the one before", i)
		}
	}
	if last := ts.srv.invocations.list("did:web:t.example", "", 1); len(last) != 1 || last[0].(map[string]any)["receipt_id"] != ids[maxInvocationReceipts] {
		t.Fatalf("limit 1: %v", last)
	}
	if other := ts.srv.invocations.list("did:web:other.example", "", 10); len(other) != 0 {
		t.Fatalf("another tenant sees %d receipts", len(other))
	}
}
