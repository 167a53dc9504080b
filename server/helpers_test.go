package server

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server/client"
	"github.com/aqlstore/aqlstore/store"
)

// Tenants of the test servers. Tenant A is a public writer and operator;
// tenant B is a did:key whose private key the tests hold, so that B can
// also sign intents.
const (
	tokenA  = "token-of-tenant-a-0123456789"
	tokenB  = "token-of-tenant-b-0123456789"
	tenantA = "did:web:tenant-a.example"
)

var keyB = func() ed25519.PrivateKey {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	return priv
}()

var tenantB = sign.DIDKey(keyB.Public().(ed25519.PublicKey))

// testServer is a real server on a loopback port.
type testServer struct {
	t      *testing.T
	srv    *Server
	st     *store.Store
	url    string
	signer *sign.Signer
	stop   func() error // shuts the server down, returns Serve's error
}

// startServer opens a store in a temp dir and serves it on 127.0.0.1:0.
// edit may change the config before the server is built.
func startServer(t *testing.T, edit func(*Config)) *testServer {
	t.Helper()
	st, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return serveStore(t, st, ix, edit)
}

// serveStore serves st on a loopback port, like startServer but on a
// store the test opened (and may close and reopen). Tenant A is also the
// public writer and the operator.
func serveStore(t *testing.T, st *store.Store, ix *index.Index, edit func(*Config)) *testServer {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	auth := mustAuth(t, `{"tokens": {"`+tokenA+`": "`+tenantA+`", "`+tokenB+`": "`+tenantB+`"},
		"public_writers": ["`+tenantA+`"], "operators": ["`+tenantA+`"]}`)
	cfg := Config{Store: st, Index: ix, Signer: sign.NewSigner(priv), Auth: auth, Addr: "127.0.0.1:0",
		Heartbeat: time.Hour, RateLimit: -1}
	if edit != nil {
		edit(&cfg)
	}
	srv, url, stop := serveConfig(t, cfg)
	return &testServer{t: t, srv: srv, st: st, url: url, signer: cfg.Signer, stop: stop}
}

// exchange sends one request through c and reads the whole answer;
// headers are name, value pairs, token a bearer token ("" for none).
func exchange(c *http.Client, method, url, token string, body io.Reader, headers ...string) (int, http.Header, []byte, error) {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return 0, nil, nil, err
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// fatalCleaner is what serveConfig needs of a *testing.T or *rapid.T.
type fatalCleaner interface {
	Fatal(args ...any)
	Cleanup(func())
}

// serveConfig builds a server from cfg and serves it on a loopback port
// until the test ends or stop is called (once; later calls return the
// same error of Serve).
func serveConfig(t fatalCleaner, cfg Config) (srv *Server, url string, stop func() error) {
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	var once sync.Once
	var serr error
	stop = func() error {
		once.Do(func() { cancel(); serr = <-done })
		return serr
	}
	t.Cleanup(func() { _ = stop() })
	return srv, "http://" + ln.Addr().String(), stop
}

func mustAuth(t *testing.T, text string) *Auth {
	t.Helper()
	path := t.TempDir() + "/auth.json"
	if err := writeTestFile(path, text); err != nil {
		t.Fatal(err)
	}
	a, err := LoadAuth(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// client returns a client of the server with token ("" anonymous).
func (ts *testServer) client(token string) *client.Client { return client.New(ts.url, token) }

// do sends a raw request and returns status, headers and body
// (sendBody, with the length sent).
func (ts *testServer) do(method, path, contentType, token string, body []byte) (int, http.Header, []byte) {
	ts.t.Helper()
	return ts.sendBody(method, path, contentType, token, body, false)
}

// putPublic stores a public document as tenant A and returns its id.
func (ts *testServer) putPublic(body string) string {
	ts.t.Helper()
	refs, err := ts.client(tokenA).Put(context.Background(), []byte(body), client.PutOptions{Public: true})
	if err != nil || len(refs) != 1 {
		ts.t.Fatalf("put %s: %v", body, err)
	}
	return refs[0].ID
}

// decode decodes a JSON object.
func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, b)
	}
	return m
}

// verified checks that body is signed by the server's key.
func (ts *testServer) verified(body []byte) {
	ts.t.Helper()
	if err := client.Verify(body, ts.signer.PublicKey()); err != nil {
		ts.t.Fatalf("signature: %v\n%s", err, body)
	}
}

// intent returns an intent document valid around now.
func intent(category, constraints, extra string) []byte {
	now := time.Now().UTC()
	return []byte(`{"intent_id": "urn:oap:intent:test-` + category + `", "issuer_did": "did:web:probe.example",
		"category": "` + category + `", "constraints": ` + constraints + `,
		"projection": {"include": ["/"]},
		"validity": {"from": "` + now.Add(-time.Hour).Format(time.RFC3339) + `", "to": "` + now.Add(time.Hour).Format(time.RFC3339) + `"},
		` + extra + `
		"signature": {"alg": "EdDSA", "value": "not-a-real-signature"}}`)
}

// nextEvent reads the next event (heartbeats are not events).
func nextEvent(t *testing.T, s *client.Stream) *client.Event {
	t.Helper()
	ev, err := s.Next()
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	return ev
}

// canonDoc decodes a JSON object into canon's value model.
func canonDoc(t *testing.T, b []byte) map[string]any {
	t.Helper()
	v, err := canon.Decode(b, nil)
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		t.Fatalf("not a JSON object: %v\n%s", err, b)
	}
	return m
}

func writeTestFile(path, text string) error { return os.WriteFile(path, []byte(text), 0o600) }

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
