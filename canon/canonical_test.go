package canon

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestCanonicalCases runs the project's own cases in testdata/canonical.txt;
// they always run, with or without ../shared.
func TestCanonicalCases(t *testing.T) {
	f, err := os.Open("testdata/canonical.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sentinels := map[string]error{"duplicate": ErrDuplicateName, "canonicalize": ErrNotCanonicalizable, "syntax": ErrSyntax}
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "#") || strings.TrimSpace(text) == "" {
			continue
		}
		in, want, ok := strings.Cut(text, "->")
		if !ok {
			t.Fatalf("line %d: no ->", line)
		}
		in, want = strings.TrimSpace(in), strings.TrimSpace(want)
		got, err := Canonicalize(nil, []byte(in), nil)
		if name, isErr := strings.CutPrefix(want, "error "); isErr {
			if !errors.Is(err, sentinels[name]) {
				t.Errorf("line %d: %s: err %v, want %s", line, in, err, name)
			}
		} else if err != nil || string(got) != want {
			t.Errorf("line %d: %s → %s (%v), want %s", line, in, got, err, want)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d cases read", n)
	}
}
