package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// aidpExamples are canon/aidp's retyped draft examples.
const aidpExamples = "../../canon/aidp/testdata"

func readAIDPExample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(aidpExamples, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAIDPValidateExamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(aidpExamples, "*.json"))
	if len(files) < 3 {
		t.Fatalf("%d examples", len(files))
	}
	for _, f := range files {
		code, out, errs := run(t, t.TempDir(), "", "aidp", "validate", f)
		if code != 0 || !strings.HasPrefix(out, f+": valid AIDP ") {
			t.Errorf("%s: %d %s %s", f, code, out, errs)
		}
	}
	code, out, _ := run(t, t.TempDir(), readAIDPExample(t, "ob-19.2.json"), "aidp", "validate", "-")
	if code != 0 || out != "stdin: valid AIDP OB (envelope_id 0f2e3c1a-9b9a-4a8c-8c2b-2f3b9f3c5a10, execution_id exec-9c2d1a, status executed)\n" {
		t.Errorf("stdin: %d %q", code, out)
	}
}

// TestAIDPValidateLines: every problem names the line of its pointer in
// the file as written (for a missing member, the line of its object).
func TestAIDPValidateLines(t *testing.T) {
	ie := readAIDPExample(t, "ie-19.1.json")
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"unknown member in actor_ref", `"agent_id": "agent:alpha",`, `"agent_id": "agent:alpha", "role": "admin",`,
			[]string{`f.json:9: MALFORMED_MESSAGE at /payload/actor_ref/role: unknown member "role" in a security-critical object`}},
		{"missing member", `"rev_ref": "urn:aidp:rev:authA:list-01"`, `"x_rev": "urn:aidp:rev:authA:list-01"`,
			[]string{`f.json:17: MALFORMED_MESSAGE at /payload/authority_ref/x_rev: unknown member "x_rev"`,
				`f.json:13: MALFORMED_MESSAGE at /payload/authority_ref/rev_ref: missing required member "rev_ref"`}},
		{"duplicate member", `"max_uses": 1,`, `"max_uses": 1, "max_uses": 2,`,
			[]string{`f.json:27: MALFORMED_MESSAGE at /payload/constraints/max_uses: line 27, column `}},
		{"version", `"aidp_version": "1.0-draft"`, `"aidp_version": "2.0"`,
			[]string{`f.json:2: UNSUPPORTED_VERSION at /aidp_version: aidp_version "2.0" is not supported`}},
		{"chain", `"delegation_chain": []`, `"delegation_chain": [{"cap_id": "cap:B1", "issuer": "i", "cap_ref": "c",` +
			"\n" + `"parent_cap_id": "cap:B1", "rev_ref": "r", "link_proof": {}}]`,
			[]string{`f.json:32: INVALID_DELEGATION_CHAIN at /payload/delegation_chain/0/parent_cap_id: capability "cap:B1" names itself`}},
	}
	for _, tc := range cases {
		if !strings.Contains(ie, tc.from) {
			t.Fatalf("%s: example lacks %q", tc.name, tc.from)
		}
		tmp := t.TempDir()
		f := writeFile(t, tmp, "f.json", strings.Replace(ie, tc.from, tc.to, 1))
		code, out, errs := run(t, tmp, "", "aidp", "validate", f)
		out = strings.ReplaceAll(out, f, "f.json")
		if code != 1 || !strings.Contains(errs, "invalid AIDP message") {
			t.Errorf("%s: exit %d, stderr %s", tc.name, code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.name, w, out)
			}
		}
		if !strings.Contains(out, "\tfix: ") {
			t.Errorf("%s: no fix line:\n%s", tc.name, out)
		}
	}
}

func TestAIDPValidateJSON(t *testing.T) {
	ob := strings.Replace(readAIDPExample(t, "ob-19.2.json"), `"status": "executed"`, `"status": "done"`, 1)
	code, out, _ := run(t, t.TempDir(), ob, "--json", "aidp", "validate", "-")
	var r struct {
		Valid    bool
		Code     string
		Problems []struct {
			Line    int
			Code    string
			Pointer string
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 {
		t.Fatalf("%d %q: %v", code, out, err)
	}
	if r.Valid || r.Code != "MALFORMED_MESSAGE" || len(r.Problems) != 1 || r.Problems[0].Pointer != "/payload/status" || r.Problems[0].Line != 9 {
		t.Fatalf("%+v", r)
	}
	// An unsigned observation passes only when asked.
	unsigned := readAIDPExample(t, "ob-19.2.json")
	unsigned = unsigned[:strings.Index(unsigned, `,
  "proof"`)] + "\n}\n"
	if code, _, _ := run(t, t.TempDir(), unsigned, "aidp", "validate", "-"); code != 1 {
		t.Errorf("unsigned OB: %d", code)
	}
	if code, out, _ := run(t, t.TempDir(), unsigned, "aidp", "validate", "--allow-unsigned", "-"); code != 0 {
		t.Errorf("unsigned OB with --allow-unsigned: %d %s", code, out)
	}
}

func TestAIDPNotJSON(t *testing.T) {
	code, out, _ := run(t, t.TempDir(), "{\n\"aidp_version\": \"1.0-draft\",\n\"msg_type\": IE}", "aidp", "validate", "-")
	if code != 1 || !strings.HasPrefix(out, "stdin:3: MALFORMED_MESSAGE at /msg_type: line 3, column") {
		t.Fatalf("%d %s", code, out)
	}
}

func TestLocator(t *testing.T) {
	src := "{\n \"a\": [\n  1,\n  {\"b\":\n   \"x\"}\n ],\n \"a~1/\": {}, \"dup\": 1,\n \"dup\": 2\n}\n"
	l := newLocator([]byte(src))
	for ptr, want := range map[string]int{"": 1, "/a": 2, "/a/0": 3, "/a/1": 4, "/a/1/b": 4, "/a/1/b/deeper": 4,
		"/a~01~1": 7, "/dup": 7, "/missing": 1, "/a/9": 2} {
		if got := l.line(ptr); got != want {
			t.Errorf("line(%q) = %d, want %d", ptr, got, want)
		}
	}
	if got := newLocator([]byte("{\"a\": [1,")).line("/a/1"); got != 1 {
		t.Errorf("truncated: %d", got)
	}
}
