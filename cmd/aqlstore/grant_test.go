package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrantRevokeGrants: tenant A grants one of its documents to B, who
// then gets it and lists it; C does not; A lists the
// grant and revokes it; the refusals exit 1 (not A's document) or 2 (no
// --as, a malformed id).
func TestGrantRevokeGrants(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	const a, b, c = "did:web:cli-a.example", "did:web:cli-b.example", "did:web:cli-c.example"
	doc := writeFile(t, tmp, "doc.json", `{"offer_id": "o-cli", "category": "granted_goods"}`)
	code, out, errs := run(t, dir, "", "--as", a, "--json", "put", doc)
	if code != 0 {
		t.Fatalf("put: %d %s", code, errs)
	}
	var ref struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &ref); err != nil || len(ref.ID) != 64 {
		t.Fatalf("put answer %q: %v", out, err)
	}
	reads := func(who string) (get, lookup, ls bool) {
		t.Helper()
		code, _, _ := run(t, dir, "", "--as", who, "get", ref.ID)
		keyCode, _, _ := run(t, dir, "", "--as", who, "get", "--kind", "offer", "--key", "o-cli")
		_, lsOut, _ := run(t, dir, "", "--as", who, "ls")
		return code == 0, keyCode == 0, strings.Contains(lsOut, ref.ID)
	}
	if g, l, q := reads(b); g || l || q {
		t.Fatalf("B before the grant: get %t lookup %t ls %t", g, l, q)
	}
	if code, out, errs := run(t, dir, "", "--as", a, "grant", ref.ID, b); code != 0 || !strings.Contains(out, "granted to "+b) {
		t.Fatalf("grant: %d %q %s", code, out, errs)
	}
	if g, l, q := reads(b); !g || !l || !q {
		t.Fatalf("B with the grant: get %t lookup %t ls %t", g, l, q)
	}
	if g, l, q := reads(c); g || l || q {
		t.Fatalf("C with B's grant: get %t lookup %t ls %t", g, l, q)
	}
	if code, out, errs := run(t, dir, "", "--as", a, "--json", "grants", ref.ID); code != 0 || !strings.Contains(out, `"grantees":["`+b+`"]`) {
		t.Fatalf("grants: %d %q %s", code, out, errs)
	}
	for _, r := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"grant", ref.ID, c}, 2, "give --as DID"},
		{[]string{"--as", a, "grant", "not-an-id", c}, 2, "CONTENT-ID"},
		{[]string{"--as", a, "grant", ref.ID}, 2, "accepts 2 arg"},
		{[]string{"--as", a, "grant", ref.ID, "notadid"}, 2, `"notadid" is not a DID`},
		{[]string{"--as", a, "grant", ref.ID, "did:Web:x"}, 2, "did:web:agent.example"},
		{[]string{"--as", "a.example", "grant", ref.ID, c}, 2, `--as: "a.example" is not a DID`},
		{[]string{"--as", b, "grant", ref.ID, c}, 1, b + " has no document " + ref.ID},
		{[]string{"--as", a, "grant", ref.ID, a}, 1, "owns the document already"},
		{[]string{"--as", a, "grant", ref.ID, "public"}, 1, "put it as a public document"},
	} {
		code, _, errs := run(t, dir, "", r.args...)
		if code != r.code || !strings.Contains(errs, r.says) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d saying %q", r.args, code, errs, r.code, r.says)
		}
	}
	if g, _, _ := reads(c); g {
		t.Fatal("a refused grant let C read the document")
	}
	if code, out, errs := run(t, dir, "", "--as", a, "revoke", ref.ID, b); code != 0 || !strings.Contains(out, "revoked from "+b) {
		t.Fatalf("revoke: %d %q %s", code, out, errs)
	}
	if g, l, q := reads(b); g || l || q {
		t.Fatalf("B after the revoke: get %t lookup %t ls %t", g, l, q)
	}
	if code, out, _ := run(t, dir, "", "--as", a, "grants", ref.ID); code != 0 || out != "" {
		t.Fatalf("grants after the revoke: %d %q", code, out)
	}
}
