package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const shoeIntent = `{"intent_id":"urn:oap:intent:cli","issuer_did":"did:web:agent.example","category":"discovery",
 "constraints":{"all_of":[{"path":"/category","operator":"eq","value":"running_shoes"},
                          {"path":"/price/amount","operator":"lte","value":"100.00"}]},
 "projection":{"include":["/manifest_id","/price"]},
 "validity":{"from":"2026-05-03T00:00:00Z","to":"2026-08-03T00:00:00Z"},
 "resolution_policy":"ranked_set","signature":{"alg":"EdDSA","value":"unsigned"}}`

func TestQueryValidateVerifyResponse(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	if code, _, errs := run(t, dir, "", "put", writeFile(t, tmp, "c.json", candidates)); code != 0 {
		t.Fatalf("put: %s", errs)
	}
	intent := writeFile(t, tmp, "intent.json", shoeIntent)
	code, out, errs := run(t, dir, "", "query", "--at", "2026-05-04T00:00:00Z", intent)
	if code != 0 || !strings.Contains(errs, "2 candidates, 0 rejected") || !strings.Contains(out, `"candidate_id":"shop-a:sku-001"`) {
		t.Fatalf("query: %d\n%s\n%s", code, out, errs)
	}
	resp := writeFile(t, tmp, "resp.json", out)
	if code, out, errs := run(t, dir, "", "verify-response", resp); code != 0 || !strings.HasPrefix(out, "ok: signed by did:key:") {
		t.Fatalf("verify-response: %d %s %s", code, out, errs)
	}
	bad := writeFile(t, tmp, "bad.json", strings.Replace(out, "shop-a:sku-001", "shop-x:sku-001", 1))
	if code, _, errs := run(t, dir, "", "verify-response", bad); code != 1 || !strings.Contains(errs, "signature") {
		t.Fatalf("tampered response verified: %d %s", code, errs)
	}
	// Outside the validity window: a signed error document and exit 1.
	code, out, errs = run(t, dir, "", "query", intent)
	if code != 1 || !strings.Contains(out, `"error":"outside_validity"`) || !strings.Contains(errs, "use --at") {
		t.Fatalf("stale intent: %d %s %s", code, out, errs)
	}
	errDoc := writeFile(t, tmp, "err.json", out)
	if code, _, _ := run(t, dir, "", "verify-response", errDoc); code != 0 {
		t.Fatal("error document not signed")
	}
	if code, out, _ := run(t, dir, "", "keys"); code != 0 || !strings.Contains(out, "did:key:z6Mk") {
		t.Fatalf("keys: %s", out)
	}
}

func TestValidateListsEveryProblem(t *testing.T) {
	tmp := t.TempDir()
	bad := strings.NewReplacer(`"eq"`, `"equals"`, `"lte"`, `"lt"`, `"100.00"`, `"cheap"`, `"ranked_set"`, `"best"`).Replace(shoeIntent)
	p := writeFile(t, tmp, "bad.json", bad)
	code, out, _ := run(t, tmp, "", "validate", p)
	for _, ptr := range []string{"/constraints/all_of/0/operator", "/constraints/all_of/1/value", "/resolution_policy"} {
		if !strings.Contains(out, "at "+ptr+":") {
			t.Errorf("validate does not name %s:\n%s", ptr, out)
		}
	}
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	good := writeFile(t, tmp, "good.json", shoeIntent)
	if code, out, _ := run(t, tmp, "", "validate", good); code != 0 || !strings.Contains(out, "valid") {
		t.Errorf("valid intent: %d %s", code, out)
	}
	// The signed error document lists every problem with its pointer.
	code, out, _ = run(t, filepath.Join(tmp, "s"), "", "query", p)
	if code != 1 || !strings.Contains(out, `"error":"invalid_intent"`) || strings.Count(out, `"pointer":`) != 3 {
		t.Errorf("query of invalid intent: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "s", "keys", "resolver.jwk")); err != nil {
		t.Errorf("key not created: %v", err)
	}
}

// TestQueryAsTenant: --as reads as that tenant: its private candidates
// answer the query, another tenant's do not, and without --as only
// public documents do.
func TestQueryAsTenant(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	const a, b = "did:web:cli-query-a.example", "did:web:cli-query-b.example"
	if code, _, errs := run(t, dir, "", "--as", a, "put", writeFile(t, tmp, "c.json", candidates)); code != 0 {
		t.Fatalf("put: %s", errs)
	}
	intent := writeFile(t, tmp, "intent.json", shoeIntent)
	for _, c := range []struct {
		as   []string
		want string
	}{
		{[]string{"--as", a}, "2 candidates"},
		{[]string{"--as", b}, "0 candidates"},
		{nil, "0 candidates"},
	} {
		code, _, errs := run(t, dir, "", append(c.as, "query", "--at", "2026-05-04T00:00:00Z", intent)...)
		if code != 0 || !strings.Contains(errs, c.want) {
			t.Errorf("query %v: %d %s, want %s", c.as, code, errs, c.want)
		}
	}
}
