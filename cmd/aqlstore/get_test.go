package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A PAIRL message is stored as text: get prints the canonical text as is,
// and --json gives its JSON view as the document, the text beside it.
func TestGetPAIRL(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	run(t, dir, "", "init")
	msg := writeFile(t, tmp, "m.pairl", "@v 1\n@mid ref:msg:g1\n@ts 2026-01-31T10:00:00Z\n\nreq{t=research} @rid=a1\n")
	if code, _, errs := run(t, dir, "", "put", msg); code != 0 {
		t.Fatalf("put: %s", errs)
	}
	code, text, errs := run(t, dir, "", "get", "--kind", "pairl", "--key", "ref:msg:g1")
	if code != 0 || !strings.HasPrefix(text, "@v 1\n") || !strings.HasSuffix(text, "\n") || strings.HasSuffix(text, "\n\n") {
		t.Fatalf("get: %d %s\n%q", code, errs, text)
	}
	code, out, errs := run(t, dir, "", "--json", "get", "--kind", "pairl", "--key", "ref:msg:g1")
	var got struct {
		Kind     string         `json:"kind"`
		Document map[string]any `json:"document"`
		Text     string         `json:"text"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("get --json: %d %s\n%s", code, errs, out)
	}
	if got.Kind != "pairl" || got.Text != text || got.Document["records"] == nil {
		t.Fatalf("get --json: %s", out)
	}
}

// An unknown kind is a usage error (exit 2) with the closest kind, as in
// every other command.
func TestGetUnknownKind(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "", "init")
	code, _, errs := run(t, dir, "", "get", "--kind", "ofer", "--key", "o-1")
	if code != 2 || !strings.Contains(errs, `did you mean "offer"?`) || !strings.Contains(errs, "known kinds:") {
		t.Errorf("get --kind ofer: exit %d, %s", code, errs)
	}
	code, _, errs = run(t, dir, "", "get", "--kind", "zzzzzzzz", "--key", "o-1")
	if code != 2 || strings.Contains(errs, "did you mean") || !strings.Contains(errs, "known kinds:") {
		t.Errorf("get --kind zzzzzzzz: exit %d, %s", code, errs)
	}
}

// Not found names the document, the reader, and how to read as someone
// else.
func TestGetNotFoundNamesReader(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	const owner = "did:web:owner.example"
	if code, _, errs := run(t, dir, `{"offer_id":"o-1","price":"5.00"}`, "--as", owner, "put", "-"); code != 0 {
		t.Fatal(errs)
	}
	code, _, errs := run(t, dir, "", "get", "--kind", "offer", "--key", "o-1")
	for _, want := range []string{"not found", `offer with key "o-1"`, "visible to public", "--as DID"} {
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("get as public: exit %d, %s; want %q", code, errs, want)
		}
	}
	const other = "did:web:other.example"
	id := strings.Repeat("ab", 32)
	code, _, errs = run(t, dir, "", "--as", other, "get", id)
	for _, want := range []string{"not found", "document " + id, "visible to " + other, "aqlstore --as " + other + " ls"} {
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("get by id as another tenant: exit %d, %s; want %q", code, errs, want)
		}
	}
	if code, out, _ := run(t, dir, "", "--as", owner, "get", "--kind", "offer", "--key", "o-1"); code != 0 || !strings.Contains(out, "o-1") {
		t.Errorf("the owner's get: %d %s", code, out)
	}
}

func TestLsUnknownKind(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "", "init")
	code, _, errs := run(t, dir, "", "ls", "--kind", "manifests")
	if code != 2 || !strings.Contains(errs, `did you mean "manifest"?`) || strings.Contains(errs, "at /") {
		t.Errorf("ls --kind manifests: exit %d, %s", code, errs)
	}
}
