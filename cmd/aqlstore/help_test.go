package main

import (
	"strings"
	"testing"
)

// put --help lists the kinds --kind takes, on a line that reads as flag,
// value and description.
func TestPutHelpListsKinds(t *testing.T) {
	code, out, errs := run(t, t.TempDir(), "", "put", "--help")
	if code != 0 {
		t.Fatalf("put --help: exit %d: %s", code, errs)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--kind") {
			line = l
		}
	}
	if !strings.Contains(line, "--kind KIND") || strings.Contains(line, "aqlstore put --help") {
		t.Errorf("the --kind line of put --help reads %q", line)
	}
	for _, k := range allKinds() {
		if !strings.Contains(line, string(k)) {
			t.Errorf("put --help does not list kind %s: %q", k, line)
		}
	}
}
