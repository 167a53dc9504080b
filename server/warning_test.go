package server

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/aqlstore/aqlstore/server/client"
)

// TestIntentPathWarning: a path no visible document has is named in an
// AQL-Warning header with the reader's near paths, beside a signed
// response that has no member more; another tenant's paths are never
// suggested, and an intent whose paths are there gets no header.
func TestIntentPathWarning(t *testing.T) {
	ts := startServer(t, nil)
	ts.putPublic(`{"category":"shoes","price":{"amount":"79.99"}}`)
	if _, err := ts.client(tokenB).Put(context.Background(), []byte(`{"categry":"hidden"}`), client.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	typo := intent("discovery", `{"path": "/categroy", "operator": "eq", "value": "shoes"}`, "")
	for _, c := range []struct {
		token string
		want  []string
	}{
		{tokenA, []string{`at /constraints/path: no visible document has "/categroy"; did you mean "/category"?`}},
		{tokenB, []string{`at /constraints/path: no visible document has "/categroy"; did you mean "/category" or "/categry"?`}},
	} {
		status, h, body := ts.do("POST", "/oap/intent", contentOAP, c.token, typo)
		if status != http.StatusOK {
			t.Fatalf("status %d: %s", status, body)
		}
		if got := h.Values(headerWarning); !slices.Equal(got, c.want) {
			t.Errorf("%s header %q, want %q", headerWarning, got, c.want)
		}
		ts.verified(body)
		if m := decode(t, body); len(m["candidates"].([]any)) != 0 || m["warnings"] != nil {
			t.Errorf("response: %s", body)
		}
	}
	good := intent("discovery", `{"path": "/category", "operator": "eq", "value": "shoes"}`, "")
	if status, h, body := ts.do("POST", "/oap/intent", contentOAP, tokenA, good); status != http.StatusOK || h.Get(headerWarning) != "" {
		t.Errorf("status %d, warning %q: %s", status, h.Get(headerWarning), body)
	}
}

func TestASCIIHeader(t *testing.T) {
	if got, want := asciiHeader("a\"/prïce\n😀"), `a"/pr\u00efce\u000a\U0001f600`; got != want {
		t.Errorf("asciiHeader = %s, want %s", got, want)
	}
}

// TestStreamPathWarning: a ranked answer streamed as events carries the
// same AQL-Warning header.
func TestStreamPathWarning(t *testing.T) {
	ts := startServer(t, nil)
	ts.putPublic(`{"category":"shoes"}`)
	typo := intent("discovery", `{"path": "/categroy", "operator": "eq", "value": "shoes"}`, `"resolution_policy": "ranked_set",`)
	status, h, body, err := exchange(http.DefaultClient, "POST", ts.url+"/oap/intent", tokenA, bytes.NewReader(typo),
		"Content-Type", contentOAP, "Accept", "text/event-stream")
	if err != nil || status != http.StatusOK {
		t.Fatalf("status %d %v: %s", status, err, body)
	}
	want := `at /constraints/path: no visible document has "/categroy"; did you mean "/category"?`
	if got := h.Values(headerWarning); !slices.Equal(got, []string{want}) {
		t.Errorf("%s header %q, want %q", headerWarning, got, want)
	}
}
