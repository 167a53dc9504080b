package server

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server/client"
	"github.com/aqlstore/aqlstore/store"
)

// TestRequestLogLine checks the one JSON line a request logs: its members
// and their types, and that its bytes are the line the key-value form
// slog.Info("request", "method", …) writes for the same values (the
// server writes it with typed attributes, which must not change a byte).
func TestRequestLogLine(t *testing.T) {
	st, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var logged bytes.Buffer // no Serve goroutine logs into it: the handler alone
	srv, err := New(Config{Store: st, Index: ix, Signer: sign.NewSigner(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))),
		Logger: slog.New(slog.NewJSONHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("healthz: %d %s", rec.Code, rec.Body.Bytes())
	}
	var line []byte
	for l := range bytes.Lines(logged.Bytes()) {
		if bytes.Contains(l, []byte(`"msg":"request"`)) {
			line = l
		}
	}
	if line == nil {
		t.Fatalf("no request line in the log:\n%s", logged.Bytes())
	}
	var got struct {
		Level, Msg, Method, Route, Pattern, Caller, Remote string
		Status                                             *int
		Bytes                                              *int64
		Duration                                           *float64 `json:"duration_ms"`
	}
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if got.Level != "INFO" || got.Method != http.MethodGet || got.Route != "healthz" || got.Pattern != "GET /healthz" ||
		got.Status == nil || *got.Status != http.StatusOK || got.Bytes == nil || *got.Bytes != int64(rec.Body.Len()) ||
		got.Duration == nil || *got.Duration < 0 || got.Caller == "" || got.Remote != req.RemoteAddr {
		t.Fatalf("request line %s: members or types are wrong", line)
	}
	var want bytes.Buffer
	slog.New(slog.NewJSONHandler(&want, nil)).Info("request", "method", got.Method, "route", got.Route, "pattern", got.Pattern,
		"status", *got.Status, "bytes", *got.Bytes, "duration_ms", *got.Duration, "caller", got.Caller, "remote", got.Remote)
	clock := regexp.MustCompile(`^\{"time":"[^"]*",`)
	if g, w := clock.ReplaceAll(line, nil), clock.ReplaceAll(want.Bytes(), nil); !bytes.Equal(g, w) {
		t.Fatalf("request line differs from the key-value form:\n got %s\nwant %s", g, w)
	}
}

// lockedBuffer is a log destination the server's goroutines share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRequestLogKeepsNoIdentifiers: request lines name the route's
// pattern, never the path with its content id, grantee DID or envelope
// id.
func TestRequestLogKeepsNoIdentifiers(t *testing.T) {
	var logged lockedBuffer
	ts := startServer(t, func(c *Config) { c.Logger = slog.New(slog.NewJSONHandler(&logged, nil)) })
	ctx := context.Background()
	refs, err := ts.client(tokenA).Put(ctx, []byte(shoe("logged-offer", 1)), client.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id := refs[0].ID
	if err := ts.client(tokenA).Grant(ctx, id, tenantB); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.client(tokenA).Get(ctx, id, nil, nil); err != nil {
		t.Fatal(err)
	}
	envelope := "urn:uuid:6d1f4c3e-0d8e-4a43-9a57-3f1b8c2e9b71"
	ts.do("GET", pathAIDPObservations+"/"+url.PathEscape(envelope), "", tokenA, nil)
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	text := logged.String()
	for _, secret := range []string{id, strings.TrimPrefix(id, "sha256:"), tenantB, url.PathEscape(tenantB), envelope, url.PathEscape(envelope)} {
		if strings.Contains(text, secret) {
			t.Errorf("the log holds %s in clear:\n%s", secret, text)
		}
	}
	if !strings.Contains(text, `"pattern":"PUT /storage/documents/{id}/grants/{grantee}"`) {
		t.Fatalf("no grant request line with its pattern:\n%s", text)
	}
}
