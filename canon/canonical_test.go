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

// TestCanonicalizeAppends: Canonicalize appends to what dst holds, on the
// one-pass path and on the token path (a document nested past the one
// pass's depth). The token path once canonicalized dst's bytes with the
// document's and refused every document put after a prefix.
func TestCanonicalizeAppends(t *testing.T) {
	deep := strings.Repeat("[", fastMaxDepth+1) + `{"b":1,"a":2}` + strings.Repeat("]", fastMaxDepth+1)
	lim := &Limits{MaxDepth: fastMaxDepth + 10}
	for _, in := range []string{`{"b":1.0,"a":[2]}`, deep} {
		want, err := Canonicalize(nil, []byte(in), lim)
		if err != nil {
			t.Fatalf("%.40s: %v", in, err)
		}
		dst := append(make([]byte, 0, 8), "prefix"...)
		got, err := Canonicalize(dst, []byte(in), lim)
		if err != nil || string(got) != "prefix"+string(want) {
			t.Errorf("%.40s after a prefix: %.60q, %v; want prefix%.54q", in, got, err, want)
		}
	}
}
