package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func do(t *testing.T, method, url, header, body string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if header != "" {
		k, v, _ := strings.Cut(header, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s %s: %d %s: not JSON", method, url, resp.StatusCode, b)
	}
	return resp.StatusCode, resp.Header, doc
}

func TestHandler(t *testing.T) {
	c := newTestCluster(t, 2)
	c.start("a", 0)
	b := c.start("b", 1)
	srv := httptest.NewServer(b.Handler(nil))
	defer srv.Close()

	status, _, rc := do(t, "POST", srv.URL+"/documents", "", string(offer("h1", "3")))
	if status != http.StatusCreated || rc["seq"] == nil {
		t.Fatalf("put: %d %v", status, rc)
	}
	if status, _, _ = do(t, "POST", srv.URL+"/documents", "", string(offer("h1", "3"))); status != http.StatusOK {
		t.Fatalf("same put again: %d, want 200", status)
	}
	if status, _, p := do(t, "POST", srv.URL+"/documents?owner=did:web:other.example", "", string(offer("h9", "4"))); status != http.StatusForbidden {
		t.Fatalf("a put as another owner: %d %v, want 403", status, p)
	}
	if status, _, p := do(t, "POST", srv.URL+"/documents", "", string(offer("h1", "4"))); status != http.StatusConflict {
		t.Fatalf("other content under h1: %d %v, want 409", status, p)
	}
	status, _, p := do(t, "POST", srv.URL+"/documents", "", `{"offer_id": "h2", "price": }`)
	if status != http.StatusBadRequest || !strings.Contains(p["detail"].(string), "line 1") {
		t.Fatalf("malformed JSON: %d %v, want 400 naming the position", status, p)
	}
	after := "AQL-After: " + strings.Join([]string{jsonNum(rc["shard"]) + ":" + jsonNum(rc["seq"])}, ",")
	status, _, resp := do(t, "POST", srv.URL+"/oap/intent", after, offerIntent)
	if status != http.StatusOK || len(resp["candidates"].([]any)) != 1 {
		t.Fatalf("intent: %d %v", status, resp)
	}
	status, _, plans := do(t, "POST", srv.URL+"/oap/explain", "", offerIntent)
	if shards, _ := plans["shards"].(map[string]any); status != http.StatusOK || len(shards) != 2 ||
		!strings.Contains(fmt.Sprint(shards["0"]), "index.") {
		t.Fatalf("explain: %d %v, want both shards' plans", status, plans)
	}
	if status, _, p = do(t, "POST", srv.URL+"/oap/intent", "AQL-After: 0:x", offerIntent); status != http.StatusBadRequest {
		t.Fatalf("bad AQL-After: %d %v", status, p)
	}
	id := rc["id"].(string)
	if status, _, p = do(t, "POST", srv.URL+"/documents/"+id+"/grants", "", `{"grantee":"did:web:g.example"}`); status != http.StatusBadRequest {
		t.Fatalf("a grant by public: %d %v, want 400 (public documents are everyone's)", status, p)
	}
	if status, _, p = do(t, "DELETE", srv.URL+"/documents/"+id+"?erase=true", "", ""); status != http.StatusOK {
		t.Fatalf("erase: %d %v", status, p)
	}
	if status, _, p = do(t, "DELETE", srv.URL+"/documents/"+id, "", ""); status != http.StatusNotFound {
		t.Fatalf("delete after erase: %d %v, want 404", status, p)
	}
	c.stop("a")
	status, _, p = do(t, "POST", srv.URL+"/oap/intent", "", offerIntent)
	if status != http.StatusServiceUnavailable || jsonNum(p["shard"]) != "0" {
		t.Fatalf("shard 0 down: %d %v, want 503 naming shard 0", status, p)
	}
	status, h, _ := do(t, "POST", srv.URL+"/oap/intent?partial=true", "", offerIntent)
	if status != http.StatusOK || h.Get("AQL-Partial") != "0" {
		t.Fatalf("partial: %d, AQL-Partial %q", status, h.Get("AQL-Partial"))
	}
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
