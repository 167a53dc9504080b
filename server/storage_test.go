package server

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/server/client"
)

func TestPutGetDelete(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	b := ts.client(tokenB)
	status, header, body := ts.do("POST", "/storage/documents", "application/json", tokenB,
		[]byte(`{"offer_id": "o-1", "price": {"amount": "10.00", "currency": "EUR"}, "internal": {"cost": "4.00"}}`))
	if status != http.StatusCreated || !strings.HasPrefix(header.Get("Location"), "/storage/documents/") {
		t.Fatalf("put: %d %v %s", status, header, body)
	}
	ts.verified(body)
	id := strings.TrimPrefix(header.Get("Location"), "/storage/documents/")

	status, header, body = ts.do("GET", "/storage/documents/"+id, "", tokenB, nil)
	if status != 200 || header.Get("ETag") != `"`+id+`"` || header.Get("Aqlstore-Natural-Key") != "o-1" ||
		!bytes.HasPrefix(body, []byte(`{"internal":{"cost":"4.00"},"offer_id":"o-1"`)) {
		t.Fatalf("get: %d %v %s", status, header, body)
	}
	proj, err := b.Get(ctx, id, []string{"/price", "/nothing"}, []string{"/price/currency"})
	if err != nil {
		t.Fatal(err)
	}
	ts.verified(proj)
	doc := decode(t, proj)
	if p := doc["payload"].(map[string]any); len(p) != 1 || p["price"].(map[string]any)["amount"] != "10.00" ||
		p["price"].(map[string]any)["currency"] != nil || len(doc["missing"].([]any)) != 1 {
		t.Fatalf("projection: %s", proj)
	}
	if _, err := b.Get(ctx, id, []string{"no-slash"}, nil); !isStatus(err, 400) {
		t.Fatalf("bad include pointer: %v", err)
	}
	if got, err := b.Lookup(ctx, "offer", "o-1"); err != nil || !bytes.Contains(got, []byte(`"o-1"`)) {
		t.Fatalf("lookup: %v %s", err, got)
	}
	if _, err := b.Put(ctx, []byte(`{"offer_id": "o-1", "price": "other"}`), client.PutOptions{}); !isStatus(err, 409) {
		t.Fatalf("conflicting put: %v", err)
	}
	refs, err := b.Put(ctx, []byte("{\"node_id\": \"k-1\"}\n\n{\"node_id\": \"k-2\"}\n"), client.PutOptions{NDJSON: true})
	if err != nil || len(refs) != 2 || refs[1].Kind != "knowledge" || refs[1].Owner != tenantB || !refs[0].Created || !refs[1].Created {
		t.Fatalf("ndjson put: %v %+v", err, refs)
	}
	// Again with one new document: 201, and only the new one is created.
	refs, err = b.Put(ctx, []byte("{\"node_id\": \"k-1\"}\n{\"node_id\": \"k-3\"}\n"), client.PutOptions{NDJSON: true})
	if err != nil || len(refs) != 2 || refs[0].Created || !refs[1].Created {
		t.Fatalf("put of one stored and one new document: %v %+v", err, refs)
	}
	// Every document already stored: 200, nothing created.
	status, _, body = ts.do("POST", "/storage/documents", "application/x-ndjson", tokenB, []byte("{\"node_id\": \"k-1\"}\n{\"node_id\": \"k-3\"}\n"))
	if status != http.StatusOK || bytes.Contains(body, []byte(`"created":true`)) {
		t.Fatalf("idempotent put: %d %s", status, body)
	}
	if err := b.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, id, nil, nil); !isStatus(err, 404) {
		t.Fatalf("get after delete: %v", err)
	}
}

func isStatus(err error, status int) bool {
	var ce *client.Error
	return errors.As(err, &ce) && ce.Status == status
}

func TestExportImport(t *testing.T) {
	src := startServer(t, nil)
	ctx := context.Background()
	b := src.client(tokenB)
	for _, d := range []string{`{"offer_id": "o-1"}`, `{"node_id": "k-1"}`,
		`{"id": "cand-1", "score": 0.7, "cost": {"amount": "1.50", "currency": "EUR"}, "record": {"name": "x"}}`} {
		if _, err := b.Put(ctx, []byte(d), client.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	src.putPublic(`{"offer_id": "someone-elses"}`)
	export, err := b.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src.verified(export)
	if bytes.Contains(export, []byte("someone-elses")) {
		t.Fatal("the export holds a document of another owner")
	}

	dst := startServer(t, nil)
	rep, err := dst.client(tokenB).Import(ctx, export)
	if err != nil {
		t.Fatal(err)
	}
	if rep["imported"] != float64(3) || rep["migration_receipt"] != float64(4) {
		t.Fatalf("import report %v", rep)
	}
	if got, err := dst.client(tokenB).Lookup(ctx, "candidate", "cand-1"); err != nil || string(got) != "{\"name\":\"x\"}\n" {
		t.Fatalf("imported candidate: %v %q", err, got)
	}
	tampered := bytes.Replace(export, []byte(`"o-1"`), []byte(`"o-2"`), 1)
	if _, err := dst.client(tokenB).Import(ctx, tampered); !isStatus(err, 422) {
		t.Fatalf("tampered export: %v", err)
	}
	if _, err := dst.client(tokenA).Import(ctx, export); !isStatus(err, 403) {
		t.Fatalf("another tenant imports B's export: %v", err)
	}
}

func TestStreamFullSet(t *testing.T) {
	ts := startServer(t, nil)
	for _, id := range []string{"a", "b", "c"} {
		ts.putPublic(`{"offer_id": "` + id + `", "category": "running_shoes"}`)
	}
	ts.putPublic(`{"offer_id": "d", "category": "socks"}`)
	body := intent("commercial", `{"path": "/category", "operator": "eq", "value": "running_shoes"}`,
		`"resolution_policy": "full_set",`)
	s, err := ts.client("").StreamIntent(context.Background(), body)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []string
	for {
		ev := nextEvent(t, s)
		ts.verified(ev.Data)
		doc := decode(t, ev.Data)
		if ev.Name == "end" {
			if doc["complete"] != true || doc["count"] != float64(3) {
				t.Fatalf("end: %s", ev.Data)
			}
			break
		}
		ids = append(ids, doc["candidate"].(map[string]any)["candidate_id"].(string))
	}
	if strings.Join(ids, ",") != "a,b,c" {
		t.Fatalf("streamed %v", ids)
	}
}

func TestStreamRanked(t *testing.T) {
	ts := startServer(t, nil)
	ts.putPublic(`{"id": "low", "score": 0.1, "record": {"category": "x", "n": 1}}`)
	ts.putPublic(`{"id": "high", "score": 0.9, "record": {"category": "x", "n": 2}}`)
	body := intent("commercial", `{"path": "/category", "operator": "eq", "value": "x"}`, "")
	s, err := ts.client("").StreamIntent(context.Background(), body)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := decode(t, nextEvent(t, s).Data)
	if c := first["candidate"].(map[string]any); c["candidate_id"] != "high" || c["rank"] != float64(1) {
		t.Fatalf("first ranked event %v", c)
	}
}

// TestShutdownEndsStreams: a shutdown ends open subscriptions with an
// `end` event naming where to resume, and Serve returns cleanly.
func TestShutdownEndsStreams(t *testing.T) {
	ts := startServer(t, nil)
	s := ts.subscribed("", shoeSubscription(10), "")
	errc := make(chan error, 1)
	go func() { errc <- ts.stop() }()
	ev := nextEvent(t, s)
	ts.verified(ev.Data)
	if doc := decode(t, ev.Data); ev.Name != "end" || doc["last_event_id"] != ev.ID || ev.ID == "" {
		t.Fatalf("on shutdown: %s %s", ev.Name, ev.Data)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Serve after shutdown: %v", err)
	}
}

func TestMetricsAndHealth(t *testing.T) {
	ts := startServer(t, nil)
	ts.putPublic(`{"offer_id": "o-1"}`)
	ts.do("POST", "/oap/intent", "application/json", "", probeIntent)
	status, header, body := ts.do("GET", "/metrics", "", "", nil)
	ts.checkProblem(status, header, body, 401, "unauthenticated")
	status, header, body = ts.do("GET", "/metrics", "", tokenB, nil)
	ts.checkProblem(status, header, body, 403, "forbidden")
	status, _, body = ts.do("GET", "/metrics", "", tokenA, nil)
	for _, want := range []string{`aqlstore_http_requests_total{code="200",route="intent"} 1`,
		`aqlstore_http_request_duration_seconds_bucket{route="intent"`, "aqlstore_store_receipts 1",
		`aqlstore_candidates_evaluated_total{plan="index`, "aqlstore_store_disk_bytes"} {
		if status != 200 || !bytes.Contains(body, []byte(want)) {
			t.Fatalf("metrics lack %q:\n%s", want, body)
		}
	}
	if status, _, body := ts.do("GET", "/healthz", "", "", nil); status != 200 || string(body) != "{\"status\":\"ok\"}\n" {
		t.Fatalf("healthz: %d %s", status, body)
	}
}

func TestLoadAuthRefusesBadFiles(t *testing.T) {
	for name, text := range map[string]string{
		"short token":   `{"tokens": {"short": "did:web:a.example"}}`,
		"not a did":     `{"tokens": {"a-long-enough-token-123": "alice"}}`,
		"bad hash":      `{"tokens": {"sha256:xyz": "did:web:a.example"}}`,
		"unknown field": `{"tokens": {}, "admins": []}`,
		"duplicate":     `{"tokens": {}, "tokens": {}}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := t.TempDir() + "/auth.json"
			if err := writeTestFile(path, text); err != nil {
				t.Fatal(err)
			}
			if _, err := LoadAuth(path); !errors.Is(err, ErrAuthFile) {
				t.Fatalf("LoadAuth = %v, want ErrAuthFile", err)
			}
		})
	}
	a := mustAuth(t, `{"tokens": {"sha256:`+sha256Hex(tokenA)+`": "`+tenantA+`"}}`)
	if did, ok := a.Tenant(tokenA); !ok || did != tenantA {
		t.Fatalf("a hashed token does not authenticate: %q %v", did, ok)
	}
}
