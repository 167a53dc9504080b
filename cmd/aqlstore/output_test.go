package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/cockroachdb/datadriven"
)

// TestOutputDataDriven runs testdata/output: what a person sees of put,
// query and explain. Each file is one store. A command's arguments are
// its flags (at=X is --at X; tty makes stdout a terminal; json is --json
// and as=DID is --as DID, before the command; no-index is --no-index); its input is the file the command reads. The
// output is stdout, then stderr with each line marked, then a nonzero
// exit code. Durations read <t>, cursors <cursor>. Regenerate with `go test ./cmd/aqlstore -run OutputDataDriven -rewrite`.
func TestOutputDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/output", func(t *testing.T, path string) {
		dir := filepath.Join(t.TempDir(), "store")
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return runDataDriven(t, dir, d)
		})
	})
}

func runDataDriven(t *testing.T, dir string, d *datadriven.TestData) string {
	in := filepath.Join(t.TempDir(), "input.json")
	if err := os.WriteFile(in, []byte(d.Input), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
	args := []string{"--dir", dir}
	var flags []string
	for _, a := range d.CmdArgs {
		switch {
		case a.Key == "tty":
			m.StdoutIsTerminal = true
		case a.Key == "json":
			args = append(args, "--json")
		case a.Key == "as":
			args = append(args, "--as", a.Vals[0])
		case len(a.Vals) == 0:
			flags = append(flags, "--"+a.Key)
		default:
			flags = append(flags, "--"+a.Key, strings.Join(a.Vals, ","))
		}
	}
	args = append(append(append(args, d.Cmd), flags...), in)
	code := m.Run(context.Background(), args)
	if d.Cmd == "put" && code == 0 { // its report has timings
		return "ok\n"
	}
	var b strings.Builder
	// A cursor is sealed with a key of the store's: new in every run.
	b.WriteString(durationRE.ReplaceAllString(cursorRE.ReplaceAllString(out.String(), "--cursor <cursor>"), "<t>"))
	for _, line := range strings.SplitAfter(errb.String(), "\n") {
		if line != "" {
			b.WriteString("stderr: " + line)
		}
	}
	if code != 0 {
		fmt.Fprintf(&b, "exit %d\n", code)
	}
	return b.String()
}

var (
	cursorRE   = regexp.MustCompile(`--cursor \S+`)
	durationRE = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?(ns|µs|ms|s)\b`) // explain's times
)

// TestQueryPipeUnchanged: without a terminal, and with --json on one,
// query prints the signed response exactly as before: one line of RFC
// 8785 bytes, the same bytes both ways, and no table.
func TestQueryPipeUnchanged(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	if code, _, errs := run(t, dir, "", "put", writeFile(t, tmp, "c.json", candidates)); code != 0 {
		t.Fatalf("put: %s", errs)
	}
	intent := writeFile(t, tmp, "intent.json", shoeIntent)
	code, piped, errs := run(t, dir, "", "query", "--at", "2026-05-04T00:00:00Z", intent)
	if code != 0 || !strings.Contains(errs, "2 candidates, 0 rejected") {
		t.Fatalf("query: %d %s", code, errs)
	}
	checkSignedLine(t, dir, piped)
	var out bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &bytes.Buffer{}, StdoutIsTerminal: true}
	if code := m.Run(context.Background(), []string{"--dir", dir, "--json", "query", "--at", "2026-05-04T00:00:00Z", intent}); code != 0 {
		t.Fatalf("query --json: exit %d", code)
	}
	checkSignedLine(t, dir, out.String())
}

// checkSignedLine checks that out is exactly one signed response: its
// RFC 8785 bytes and a newline, with a signature that verifies.
func checkSignedLine(t *testing.T, dir, out string) {
	t.Helper()
	doc, err := canon.Decode([]byte(strings.TrimSuffix(out, "\n")), nil)
	if err != nil {
		t.Fatalf("output is not one JSON document: %v\n%s", err, out)
	}
	if want := string(canon.AppendValue(nil, doc)) + "\n"; out != want {
		t.Errorf("output is not the RFC 8785 bytes and a newline:\n got %q\nwant %q", out, want)
	}
	resp := writeFile(t, t.TempDir(), "resp.json", out)
	if code, v, errs := run(t, dir, "", "verify-response", resp); code != 0 {
		t.Errorf("output does not verify: %s %s", v, errs)
	}
}

// TestQueryWarnsInPipe: in a pipe too, a path no document has is warned
// about on stderr, while stdout stays the signed response and the exit
// code 0.
func TestQueryWarnsInPipe(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	if code, _, errs := run(t, dir, "", "put", writeFile(t, tmp, "c.json", candidates)); code != 0 {
		t.Fatalf("put: %s", errs)
	}
	intent := writeFile(t, tmp, "intent.json", strings.Replace(shoeIntent, `"/category"`, `"/categroy"`, 1))
	code, out, errs := run(t, dir, "", "query", "--at", "2026-05-04T00:00:00Z", intent)
	if code != 0 || !strings.Contains(errs, `warning: at /constraints/all_of/0/path: no visible document has "/categroy"; did you mean "/category"?`) {
		t.Fatalf("query: exit %d, stderr %s", code, errs)
	}
	checkSignedLine(t, dir, out)
}

// TestExplainJSONWarnings: explain --json lists the warnings, and the
// leaf's note, for programs.
func TestExplainJSONWarnings(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	if code, _, errs := run(t, dir, "", "put", writeFile(t, tmp, "c.json", candidates)); code != 0 {
		t.Fatalf("put: %s", errs)
	}
	intent := writeFile(t, tmp, "intent.json", strings.Replace(shoeIntent, `"/category"`, `"/categroy"`, 1))
	code, out, errs := run(t, dir, "", "--json", "explain", "--at", "2026-05-04T00:00:00Z", intent)
	if code != 0 {
		t.Fatalf("explain: %d %s", code, errs)
	}
	var doc struct {
		Plan struct {
			Root struct {
				Children []struct {
					Note string `json:"note"`
				} `json:"children"`
			} `json:"root"`
		} `json:"plan"`
		Warnings []struct {
			Pointer     string   `json:"pointer"`
			Suggestions []string `json:"suggestions"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(doc.Warnings) != 1 || doc.Warnings[0].Pointer != "/constraints/all_of/0/path" ||
		!slices.Equal(doc.Warnings[0].Suggestions, []string{"/category"}) {
		t.Errorf("warnings: %+v", doc.Warnings)
	}
	if kids := doc.Plan.Root.Children; len(kids) != 2 || !strings.Contains(kids[0].Note, `did you mean "/category"?`) || kids[1].Note != "" {
		t.Errorf("notes: %+v", kids)
	}
}
