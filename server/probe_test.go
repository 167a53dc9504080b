package server

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/aqlstore/aqlstore/server/client"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// probeIntent is what OAP's conformance suite posts to endpoints.intent:
// a discovery intent on /oap_version, the whole document projected, a
// validity window around now, and a signature that is not a real one from
// an issuer whose key does not resolve.
var probeIntent = intent("discovery", `{"path": "/oap_version", "operator": "exists", "value": true}`, "")

// TestEndToEndProbe runs the OAP probe against the real server.
func TestEndToEndProbe(t *testing.T) {
	ts := startServer(t, nil)
	if n, err := LoadDemo(context.Background(), ts.st, ""); err != nil || n == 0 {
		t.Fatalf("demo: %d %v", n, err)
	}
	c := ts.client("")
	ctx := context.Background()
	manifest, err := c.Manifest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	endpoints, _ := manifest["endpoints"].(map[string]any)
	if endpoints["intent"] != "/oap/intent" {
		t.Fatalf("manifest endpoints.intent = %v", endpoints["intent"])
	}
	pub, err := c.ServerKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	did, _ := c.DIDDocument(ctx)
	if aka, _ := did["alsoKnownAs"].([]any); len(aka) != 1 || aka[0] != ts.signer.DID() {
		t.Errorf("did.json alsoKnownAs = %v, want the did:key %s", did["alsoKnownAs"], ts.signer.DID())
	}

	status, header, body := ts.do(http.MethodPost, "/oap/intent", "application/oap+json", "", probeIntent)
	if status != http.StatusOK || header.Get("Cache-Control") != "no-store" {
		t.Fatalf("probe: %d %q\n%s", status, header.Get("Cache-Control"), body)
	}
	if err := client.Verify(body, pub); err != nil {
		t.Fatalf("response signature under the did.json key: %v", err)
	}
	resp := decode(t, body)
	cands, _ := resp["candidates"].([]any)
	if len(cands) == 0 {
		t.Fatal("the probe found no candidates in the demo corpus")
	}
	for i, c := range cands {
		rec, _ := c.(map[string]any)["decision_record"].(map[string]any)
		if _, ok := rec["constraint_evaluations"].([]any); !ok {
			t.Fatalf("candidate %d has no decision_record.constraint_evaluations", i)
		}
	}
	validateResponse(t, body)
}

// validateResponse checks body against oap-intent-response.schema.json
// (with oap-aql-decision.schema.json), from ../shared when present.
func validateResponse(t *testing.T, body []byte) {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "vectors", "oap", "schemas", "v1.0")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared is absent: the schema check is skipped")
	}
	sch := oapSchema(t, dir, false, "oap-intent-response.schema.json", "oap-aql-decision.schema.json")
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the response does not validate against oap-intent-response.schema.json: %v", err)
	}
}
