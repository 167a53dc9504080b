package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/sign"
)

// TestQueryRefusalsSayWhere: an intent refused for its validity window
// or its signature gets a signed error document whose problems name the
// member to fix, and stderr names it too.
func TestQueryRefusalsSayWhere(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	if code, _, errs := run(t, dir, "", "init"); code != 0 {
		t.Fatalf("init: %d %s", code, errs)
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	v, err := canon.Decode([]byte(shoeIntent), nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := v.(map[string]any)
	doc["issuer_did"] = sign.DIDKey(priv.Public().(ed25519.PublicKey))
	signed, err := sign.NewSigner(priv).Sign(doc)
	if err != nil {
		t.Fatal(err)
	}
	signed["intent_id"] = "urn:oap:intent:changed-after-signing"
	tampered := writeFile(t, tmp, "tampered.json", string(canon.AppendValue(nil, signed)))
	intent := writeFile(t, tmp, "intent.json", shoeIntent)
	for _, tc := range []struct {
		args          []string
		code, pointer string
	}{
		{[]string{"--at", "2026-09-01T00:00:00Z", intent}, "outside_validity", "/validity/to"},
		{[]string{"--at", "2026-01-01T00:00:00Z", intent}, "outside_validity", "/validity/from"},
		{[]string{"--at", "2026-05-04T00:00:00Z", tampered}, "signature_refused", "/signature/value"},
	} {
		exit, out, errs := run(t, dir, "", append([]string{"query"}, tc.args...)...)
		var got struct {
			Error    string
			Problems []struct{ Pointer, Code, Message string }
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || exit != 1 {
			t.Fatalf("query %v: exit %d, %v\n%s", tc.args, exit, err, out)
		}
		if got.Error != tc.code || len(got.Problems) != 1 || got.Problems[0].Pointer != tc.pointer || got.Problems[0].Message == "" {
			t.Errorf("query %v: %s, want %s with one problem at %s", tc.args, out, tc.code, tc.pointer)
		}
		if !strings.Contains(errs, "at "+tc.pointer+":") {
			t.Errorf("query %v: stderr does not name %s:\n%s", tc.args, tc.pointer, errs)
		}
	}
}
