package main

import (
	"strings"
	"testing"
)

// TestPutWarnsOfRoundedNumbers: put stores a number RFC 8785 rounds as
// the double it rounds to, and says so with the document and pointer.
func TestPutWarnsOfRoundedNumbers(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, t.TempDir(), "docs.ndjson",
		"{\"node_id\":\"k-1\",\"w\":1.0}\n{\"node_id\":\"k-2\",\"price\":{\"amount\":9007199254740993}}\n")
	code, _, stderr := run(t, dir, "", "put", in)
	if code != 0 {
		t.Fatalf("put exited %d: %s", code, stderr)
	}
	want := "docs.ndjson:2 (document 2): warning: /price/amount: the number 9007199254740993 is stored as 9007199254740992"
	if !strings.Contains(stderr, want) || strings.Count(stderr, "warning:") != 1 {
		t.Errorf("stderr:\n%s\nwant one warning containing\n%s", stderr, want)
	}
	code, out, _ := run(t, dir, "", "get", "--kind", "knowledge", "--key", "k-2")
	if code != 0 || !strings.Contains(out, `"amount":9007199254740992`) {
		t.Errorf("stored document: %d %s", code, out)
	}
}
