package server

import (
	"net/http"
	"testing"
)

// TestPutWarnsOfRoundedNumbers: a number RFC 8785 rounds is stored
// rounded, and the put response says which, by document and pointer.
func TestPutWarnsOfRoundedNumbers(t *testing.T) {
	ts := startServer(t, nil)
	status, _, body := ts.do("POST", "/storage/documents", "application/x-ndjson", tokenB,
		[]byte("{\"node_id\":\"k-1\",\"w\":1.0}\n{\"node_id\":\"k-2\",\"x\":[0.30000000000000001],\"y\":123456789012345678901234567890}\n"))
	if status != http.StatusCreated {
		t.Fatalf("put: %d %s", status, body)
	}
	ts.verified(body)
	warnings, _ := decode(t, body)["warnings"].([]any)
	if len(warnings) != 2 {
		t.Fatalf("want 2 warnings, got %s", body)
	}
	for i, want := range []map[string]any{
		{"pointer": "/x/0", "number": "0.30000000000000001", "stored": "0.3"},
		{"pointer": "/y", "number": "123456789012345678901234567890", "stored": "1.2345678901234568e+29"},
	} {
		w := warnings[i].(map[string]any)
		if w["document"] != float64(2) {
			t.Errorf("warning %d names document %v, want 2", i, w["document"])
		}
		for k, v := range want {
			if w[k] != v {
				t.Errorf("warning %d: %s = %v, want %v", i, k, w[k], v)
			}
		}
	}
	status, _, body = ts.do("POST", "/storage/documents", "application/json", tokenB, []byte(`{"node_id":"k-3","z":1.50}`))
	if status != http.StatusCreated || decode(t, body)["warnings"] != nil {
		t.Errorf("a put without rounding warns: %d %s", status, body)
	}
}
