package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server/client"
)

// checkProblem checks an RFC 9457 problem document, signed by the server.
func (ts *testServer) checkProblem(status int, header http.Header, body []byte, wantStatus int, wantCode string) map[string]any {
	ts.t.Helper()
	if status != wantStatus {
		ts.t.Fatalf("status %d, want %d: %s", status, wantStatus, body)
	}
	if ct := header.Get("Content-Type"); ct != contentProblem {
		ts.t.Fatalf("Content-Type %q, want %s", ct, contentProblem)
	}
	ts.verified(body)
	doc := decode(ts.t, body)
	for _, m := range []string{"type", "title", "status", "detail"} {
		if doc[m] == nil {
			ts.t.Fatalf("problem document without %s: %s", m, body)
		}
	}
	if doc["code"] != wantCode || doc["type"] != problemTypePrefix+wantCode {
		ts.t.Fatalf("code %v, want %s: %s", doc["code"], wantCode, body)
	}
	return doc
}

func TestBadRequests(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxBodyBytes = 64 << 10 })
	probe := string(probeIntent)
	cases := []struct {
		name, method, path, ctype, token, body string
		status                                 int
		code                                   string
		pointer                                string // the first problem's pointer, for intents
	}{
		{"malformed JSON", "POST", "/oap/intent", "application/json", "", `{"intent_id": `, 400, "invalid_intent", ""},
		{"duplicate keys", "POST", "/oap/intent", "application/oap+json", "",
			strings.Replace(probe, `"category"`, `"category": "knowledge", "category"`, 1), 400, "invalid_intent", "/category"},
		{"bad operator", "POST", "/oap/intent", "application/oap+json", "",
			strings.Replace(probe, `"exists"`, `"starts_with"`, 1), 400, "invalid_intent", "/constraints/operator"},
		{"wrong content type", "POST", "/oap/intent", "text/plain", "", probe, 415, "unsupported_media_type", ""},
		{"wrong charset", "POST", "/oap/intent", "application/json; charset=latin1", "", probe, 415, "unsupported_media_type", ""},
		{"oversized body", "POST", "/oap/intent", "application/json", "", `{"x": "` + strings.Repeat("a", 70<<10) + `"}`,
			413, "body_too_large", ""},
		{"unauthenticated write", "POST", "/storage/documents", "application/json", "", `{"offer_id": "o"}`, 401, "unauthenticated", ""},
		{"unknown token", "POST", "/storage/documents", "application/json", "not-a-token-we-know", `{"offer_id": "o"}`, 401, "unauthenticated", ""},
		{"unauthenticated export", "GET", "/storage/export", "", "", "", 401, "unauthenticated", ""},
		{"public write by non-writer", "POST", "/storage/documents?visibility=public", "application/json", tokenB, `{"offer_id": "o"}`, 403, "forbidden", ""},
		{"bad document", "POST", "/storage/documents", "application/json", tokenB, `{"offer_id": 7}`, 400, "invalid_document", ""},
		{"bad content id", "GET", "/storage/documents/xyz", "", "", "", 400, "bad_id", ""},
		{"unknown path", "GET", "/nope", "", "", "", 404, "not_found", ""},
		{"wrong method", "GET", "/oap/intent", "", "", "", 405, "method_not_allowed", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, header, body := ts.do(tc.method, tc.path, tc.ctype, tc.token, []byte(tc.body))
			doc := ts.checkProblem(status, header, body, tc.status, tc.code)
			if tc.pointer == "" {
				return
			}
			problems, _ := doc["problems"].([]any)
			if len(problems) == 0 || problems[0].(map[string]any)["pointer"] != tc.pointer {
				t.Fatalf("problems %v, want the first at %s", doc["problems"], tc.pointer)
			}
		})
	}
	if status, _, _ := ts.do("GET", "/healthz", "", "", nil); status != 200 {
		t.Fatalf("the server is unwell after the bad requests: %d", status)
	}
}

// TestSlowHeaders: a client that never finishes its headers is cut off
// at ReadHeaderTimeout (no response: the request never arrived), and the
// server goes on serving others.
func TestSlowHeaders(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.ReadHeaderTimeout = 200 * time.Millisecond })
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /oap/intent HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n")
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on a hang, not a timing assertion
	if _, err := bufio.NewReader(conn).ReadByte(); err == nil || isTimeout(err) {
		t.Fatalf("the server kept a client that holds its headers: %v", err)
	}
	if status, _, _ := ts.do("GET", "/healthz", "", "", nil); status != 200 {
		t.Fatalf("healthz after the slow client: %d", status)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestCrossTenant: tenant A's private document is invisible to tenant B
// and to anonymous callers, by get, lookup, delete, query, export and
// subscription; the answers B gets do not change when A adds it.
func TestCrossTenant(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	ts.putPublic(`{"offer_id": "pub", "category": "running_shoes"}`)
	before := signedQueryAsB(t, ts)
	refs, err := ts.client(tokenA).Put(ctx, []byte(`{"offer_id": "a-secret", "category": "running_shoes"}`), client.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id := refs[0].ID
	for _, tok := range []string{tokenB, ""} {
		status, header, body := ts.do("GET", "/storage/documents/"+id, "", tok, nil)
		ts.checkProblem(status, header, body, 404, "not_found")
		status, header, body = ts.do("GET", "/storage/documents?kind=offer&key=a-secret", "", tok, nil)
		ts.checkProblem(status, header, body, 404, "not_found")
	}
	status, header, body := ts.do("DELETE", "/storage/documents/"+id, "", tokenB, nil)
	ts.checkProblem(status, header, body, 404, "not_found")
	if b, err := ts.client(tokenA).Get(ctx, id, nil, nil); err != nil || !bytes.Contains(b, []byte("a-secret")) {
		t.Fatalf("the owner cannot read its document: %v", err)
	}
	if after := signedQueryAsB(t, ts); after != before {
		t.Fatalf("B's query changed when A stored a private document: %s → %s", before, after)
	}
	export, err := ts.client(tokenB).Export(ctx)
	if err != nil || bytes.Contains(export, []byte("a-secret")) || bytes.Contains(export, []byte(tenantA)) {
		t.Fatalf("B's export: %v\n%s", err, export)
	}
}

// signedQueryAsB resolves a commercial intent signed by tenant B's key
// and returns what it found: candidate ids and the rejected count.
func signedQueryAsB(t *testing.T, ts *testServer) string {
	t.Helper()
	body := intent("commercial", `{"path": "/category", "operator": "eq", "value": "running_shoes"}`, "")
	doc := canonDoc(t, body)
	doc["issuer_did"] = tenantB
	signed, err := sign.NewSigner(keyB).Sign(doc)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ts.client("").Intent(context.Background(), canon.AppendValue(nil, signed))
	if err != nil {
		t.Fatal(err)
	}
	r := decode(t, resp)
	var ids []string
	for _, c := range r["candidates"].([]any) {
		ids = append(ids, c.(map[string]any)["candidate_id"].(string))
	}
	rejected, _ := r["rejected"].([]any)
	return fmt.Sprintf("%v rejected=%d", ids, len(rejected))
}

func TestRateLimit(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.RateLimit, c.RateBurst = 0.001, 1 })
	if status, _, _ := ts.do("GET", "/.well-known/did.json", "", "", nil); status != 200 {
		t.Fatalf("first request: %d", status)
	}
	status, header, body := ts.do("GET", "/.well-known/did.json", "", "", nil)
	ts.checkProblem(status, header, body, 429, "rate_limited")
	if header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	// Another caller has its own bucket.
	if status, _, _ := ts.do("GET", "/.well-known/did.json", "", tokenB, nil); status != 200 {
		t.Fatalf("tenant B was limited by the anonymous caller's requests: %d", status)
	}
}

func TestNonLoopbackNeedsAuth(t *testing.T) {
	ts := startServer(t, nil)
	cfg := Config{Store: ts.st, Signer: ts.signer, Addr: "0.0.0.0:0"}
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("New without auth on 0.0.0.0: %v", err)
	}
	cfg.Auth = mustAuth(t, `{"tokens": {"`+tokenA+`": "`+tenantA+`"}}`)
	if _, err := New(cfg); err != nil {
		t.Fatalf("New with auth on 0.0.0.0: %v", err)
	}
	for addr, want := range map[string]bool{"127.0.0.1:1": true, "localhost:1": true, "[::1]:1": true,
		":8080": false, "10.0.0.1:80": false, "example.com:80": false} {
		if IsLoopback(addr) != want {
			t.Errorf("IsLoopback(%q) = %v", addr, !want)
		}
	}
}
