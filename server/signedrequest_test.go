package server

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server/client"
)

// TestSignedRequestAccepted: a tenant that signs its requests with its
// did:key writes, reads and queries as itself, with no token.
func TestSignedRequestAccepted(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	c := ts.client("")
	c.Key = keyB // tenant B is a did:key: it may sign instead of sending its token
	refs, err := c.Put(ctx, []byte(shoe("signed-secret", 4)), client.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if refs[0].Owner != tenantB {
		t.Fatalf("owner %s, want %s", refs[0].Owner, tenantB)
	}
	if b, err := c.Get(ctx, refs[0].ID, nil, nil); err != nil || !bytes.Contains(b, []byte("signed-secret")) {
		t.Fatalf("get: %v %s", err, b)
	}
	query := intent("commercial", `{"path": "/offer_id", "operator": "eq", "value": "signed-secret"}`, "")
	if got := answerWith(t, ts, c, query); got != 1 {
		t.Fatalf("the signed query found %d candidates, want its own document", got)
	}
	if got := answerWith(t, ts, ts.client(""), query); got != 0 {
		t.Fatalf("an anonymous query found %d", got)
	}
	if err := c.Delete(ctx, refs[0].ID); err != nil {
		t.Fatal(err)
	}
}

func answerWith(t *testing.T, ts *testServer, c *client.Client, intent []byte) int {
	t.Helper()
	body, err := c.Intent(context.Background(), intent)
	if err != nil {
		t.Fatal(err)
	}
	ts.verified(body)
	return len(decode(t, body)["candidates"].([]any))
}

// TestSignedRequestRefused: every way a signed request can be wrong is a
// signed 401 (never served as anonymous), and a replay is refused.
func TestSignedRequestRefused(t *testing.T) {
	ts := startServer(t, nil)
	now := time.Now()
	body := []byte(shoe("x", 1))
	_, stranger, _ := ed25519.GenerateKey(rand.Reader)
	aud := ts.signer.DID()
	type req struct {
		body, sent []byte
		key        ed25519.PrivateKey
		aud, path  string
		at         time.Time
	}
	good := req{body: body, key: keyB, aud: aud, path: "/storage/documents", at: now}
	cases := map[string]func(r *req){
		"stale":           func(r *req) { r.at = now.Add(-10 * time.Minute) },
		"future":          func(r *req) { r.at = now.Add(10 * time.Minute) },
		"another body":    func(r *req) { r.sent = []byte(shoe("y", 1)) },
		"another path":    func(r *req) { r.path = "/storage/documents?visibility=public" },
		"another server":  func(r *req) { r.aud = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK" },
		"unknown did:key": func(r *req) { r.key = stranger },
	}
	send := func(r req, header string) (int, http.Header, []byte) {
		sent := r.sent
		if sent == nil {
			sent = r.body
		}
		hr, err := http.NewRequest("POST", ts.url+r.path, bytes.NewReader(sent))
		if err != nil {
			t.Fatal(err)
		}
		hr.Header.Set("Content-Type", "application/json")
		if header == "" {
			signFor := hr.Clone(context.Background())
			signFor.URL.RawQuery = ""
			signFor.URL.Path = "/storage/documents"
			if err := client.SignRequest(hr, r.body, r.key, r.aud, r.at); err != nil {
				t.Fatal(err)
			}
			if r.path != good.path { // signed for the good path, sent to another
				_ = client.SignRequest(signFor, r.body, r.key, r.aud, r.at)
				hr.Header.Set("Authorization", signFor.Header.Get("Authorization"))
			}
		} else {
			hr.Header.Set("Authorization", header)
		}
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return resp.StatusCode, resp.Header, b.Bytes()
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			r := good
			edit(&r)
			status, header, b := send(r, "")
			ts.checkProblem(status, header, b, 401, "unauthenticated")
			if !strings.Contains(strings.Join(header.Values("WWW-Authenticate"), ","), "DIDKey") {
				t.Errorf("no DIDKey challenge: %v", header.Values("WWW-Authenticate"))
			}
		})
	}
	for name, header := range map[string]string{
		"malformed":  "DIDKey kid=did:key:z6Mk",
		"bad kid":    `DIDKey kid="did:web:x", created="1", nonce="0123456789abcdef", body-sha256="` + strings.Repeat("0", 64) + `", sig="AA"`,
		"short sig":  `DIDKey kid="` + tenantB + `", created="1", nonce="0123456789abcdef", body-sha256="` + strings.Repeat("0", 64) + `", sig="AA"`,
		"dup params": `DIDKey kid="` + tenantB + `", kid="` + tenantB + `"`,
	} {
		t.Run(name, func(t *testing.T) {
			status, header, b := send(good, header)
			ts.checkProblem(status, header, b, 401, "unauthenticated")
		})
	}
	// The same signed request twice: the first stores, the second is a replay.
	hr, _ := http.NewRequest("POST", ts.url+"/storage/documents", bytes.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	if err := client.SignRequest(hr, body, keyB, aud, now); err != nil {
		t.Fatal(err)
	}
	auth := hr.Header.Get("Authorization")
	if status, _, b := send(good, auth); status != http.StatusCreated {
		t.Fatalf("first use: %d %s", status, b)
	}
	status, header, b := send(good, auth)
	if doc := ts.checkProblem(status, header, b, 401, "unauthenticated"); !strings.Contains(doc["detail"].(string), "replay") {
		t.Fatalf("replay detail: %s", doc["detail"])
	}
}

// TestSignedRequestTenancyNotDisclosed: a garbage signature gets the same
// 401 whether its kid is a tenant or not, so that probing does not list
// the tenants.
func TestSignedRequestTenancyNotDisclosed(t *testing.T) {
	ts := startServer(t, nil)
	_, stranger, _ := ed25519.GenerateKey(rand.Reader)
	strangerDID := sign.DIDKey(stranger.Public().(ed25519.PublicKey))
	garbage := base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{7}, ed25519.SignatureSize))
	detail := func(kid string) string {
		h := `DIDKey kid="` + kid + `", created="` + strconv.FormatInt(time.Now().Unix(), 10) +
			`", nonce="0123456789abcdef", body-sha256="` + sha256Hex("") + `", sig="` + garbage + `"`
		req, _ := http.NewRequest("GET", ts.url+"/storage/export", nil)
		req.Header.Set("Authorization", h)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		doc := ts.checkProblem(resp.StatusCode, resp.Header, b.Bytes(), 401, "unauthenticated")
		return strings.ReplaceAll(doc["detail"].(string), kid, "KID")
	}
	if tenant, other := detail(tenantB), detail(strangerDID); tenant != other {
		t.Fatalf("the 401 tells a tenant from a stranger:\n tenant:   %s\n stranger: %s", tenant, other)
	}
}
