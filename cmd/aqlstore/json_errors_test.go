package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// With --json every command prints one JSON object on stdout, for an
// error as for a success: errors in one problem-document shape, {"error",
// "message", "problems": [{document, line, column, pointer, code,
// message}]}, with the exit code of the README's table.
func TestJSONOnEveryCommand(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	notDir := writeFile(t, tmp, "plain-file", "not a directory")
	cands := writeFile(t, tmp, "c.json", candidates)
	intent := writeFile(t, tmp, "intent.json", shoeIntent)
	badDocs := writeFile(t, tmp, "bad.ndjson", "{\"offer_id\":\"b-1\",\"price\":5.0.0}\n{\"offer_id\":\"b-2\"}\n{\"offer_id\":\n")
	if code, _, errs := run(t, dir, "", "put", cands); code != 0 {
		t.Fatalf("put: %s", errs)
	}
	_, resp, _ := run(t, dir, "", "query", "--at", "2026-05-04T00:00:00Z", intent)
	respFile := writeFile(t, tmp, "resp.json", resp)
	tampered := writeFile(t, tmp, "tampered.json", strings.Replace(resp, "shop-a:sku-001", "shop-x:sku-001", 1))
	cases := []struct {
		name  string
		dir   string
		args  []string
		code  int
		error string // the problem document's error; "" for success
	}{
		{"init", filepath.Join(tmp, "new"), []string{"init"}, 0, ""},
		{"init in a file", notDir, []string{"init"}, 1, "failed"},
		{"reindex", dir, []string{"reindex"}, 0, ""},
		{"reindex bad flag", dir, []string{"reindex", "--batch", "many"}, 2, "usage"},
		{"index", dir, []string{"index"}, 0, ""},
		{"index both", dir, []string{"index", "--text-paths", "/a", "--clear-text-paths"}, 2, "usage"},
		{"verify-response", dir, []string{"verify-response", respFile}, 0, ""},
		{"verify-response tampered", dir, []string{"verify-response", tampered}, 1, "failed"},
		{"put", dir, []string{"put", cands}, 0, ""},
		{"put rejected", dir, []string{"put", badDocs}, 1, "invalid_document"},
		{"get", dir, []string{"get", "--kind", "candidate", "--key", "shop-a:sku-001"}, 0, ""},
		{"get not found", dir, []string{"get", "--kind", "offer", "--key", "nope"}, 1, "not_found"},
		{"ls no store", filepath.Join(tmp, "stroe"), []string{"ls"}, 1, "no_store"},
		{"unknown command", dir, []string{"lss"}, 2, "usage"},
		{"unknown flag", dir, []string{"ls", "--bogus"}, 2, "usage"},
		{"unknown kind", dir, []string{"ls", "--kind", "ofer"}, 2, "usage"},
	}
	for _, c := range cases {
		code, out, errs := run(t, c.dir, "", append([]string{"--json"}, c.args...)...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d; stderr %s", c.name, code, c.code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var doc map[string]any
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &doc); err != nil {
			t.Errorf("%s: stdout is not JSON (%v):\n%s\nstderr: %s", c.name, err, out, errs)
			continue
		}
		if c.error == "" {
			if _, ok := doc["error"]; ok {
				t.Errorf("%s: succeeded with an error document: %s", c.name, out)
			}
			continue
		}
		if len(lines) != 1 || doc["error"] != c.error || doc["message"] == "" || doc["problems"] == nil {
			t.Errorf("%s: want one problem document with error %q, got:\n%s", c.name, c.error, out)
		}
		if msg, _ := doc["message"].(string); strings.HasPrefix(msg, "store:") || strings.HasPrefix(msg, "canon:") {
			t.Errorf("%s: message keeps a package prefix: %q", c.name, msg)
		}
	}
	// A rejected put names each bad document, from 1, with its position.
	_, out, _ := run(t, dir, "", "--json", "put", badDocs)
	var doc struct {
		Problems []problem `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("put rejected: %v: %s", err, out)
	}
	if len(doc.Problems) != 2 {
		t.Fatalf("put rejected: %d problems, want 2 (documents 1 and 3): %s", len(doc.Problems), out)
	}
	first, last := doc.Problems[0], doc.Problems[1]
	if first.Document != 1 || first.Line != 1 || first.Column != 30 || first.Code != "invalid_json" || first.Message == "" {
		t.Errorf("first problem %+v, want document 1 at line 1, column 30, invalid_json", first)
	}
	if last.Document != 3 || last.Line < 3 || last.Code != "invalid_json" {
		t.Errorf("second problem %+v, want document 3 at line 3 or after (its end), invalid_json", last)
	}
}

// A bad flag is a usage error (exit 2) for every command.
func TestBadFlagExit2EveryCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	root := (&Main{}).rootCommand()
	var names []string
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		names = append(names, c.Name())
		for _, sub := range c.Commands() {
			code, _, errs := run(t, dir, "", c.Name(), sub.Name(), "--no-such-flag")
			if code != exitUsage {
				t.Errorf("%s %s --no-such-flag: exit %d, want 2: %s", c.Name(), sub.Name(), code, errs)
			}
		}
		code, _, errs := run(t, dir, "", c.Name(), "--no-such-flag")
		if code != exitUsage || !strings.Contains(errs, "no-such-flag") {
			t.Errorf("%s --no-such-flag: exit %d, want 2: %s", c.Name(), code, errs)
		}
	}
	if len(names) < 20 {
		t.Fatalf("walked only %d commands: %v", len(names), names)
	}
}
