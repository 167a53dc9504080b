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
