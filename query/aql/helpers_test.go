package aql

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// sharedDir is the repository's ../shared, which a user's clone lacks.
const sharedDir = "../../../shared"

// sharedFile returns a file under ../shared, skipping the test when the
// directory is absent.
func sharedFile(t testing.TB, rel string) string {
	t.Helper()
	if _, err := os.Stat(sharedDir); err != nil {
		t.Skipf("%s is absent: %v", sharedDir, err)
	}
	return filepath.Join(sharedDir, rel)
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixture decodes one of testdata/valid/*.json.
func fixture(t testing.TB, name string) map[string]any {
	t.Helper()
	v, err := canon.Decode(readFile(t, filepath.Join("testdata", "valid", name)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

// decodeValue decodes a JSON literal written in a test.
func decodeValue(t testing.TB, s string) any {
	t.Helper()
	v, err := canon.Decode([]byte(s), nil)
	if err != nil {
		t.Fatalf("test literal %s: %v", s, err)
	}
	return v
}

// edit changes a decoded intent before it is encoded again.
type edit func(t testing.TB, doc map[string]any)

// set sets the node at ptr (plain RFC 6901, no escapes) to the JSON value
// literal, adding an object member if need be.
func set(ptr, literal string) edit {
	return func(t testing.TB, doc map[string]any) {
		t.Helper()
		parent, last := parentOf(t, doc, ptr)
		v := decodeValue(t, literal)
		switch p := parent.(type) {
		case map[string]any:
			p[last] = v
		case []any:
			p[index(t, last, len(p))] = v
		}
	}
}

// del removes the object member at ptr.
func del(ptr string) edit {
	return func(t testing.TB, doc map[string]any) {
		t.Helper()
		parent, last := parentOf(t, doc, ptr)
		m, ok := parent.(map[string]any)
		if !ok {
			t.Fatalf("del %s: parent is not an object", ptr)
		}
		if _, ok := m[last]; !ok {
			t.Fatalf("del %s: no such member", ptr)
		}
		delete(m, last)
	}
}

func parentOf(t testing.TB, doc map[string]any, ptr string) (any, string) {
	t.Helper()
	segs := strings.Split(ptr, "/")[1:]
	var cur any = doc
	for _, s := range segs[:len(segs)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[s]
		case []any:
			cur = c[index(t, s, len(c))]
		default:
			t.Fatalf("edit %s: %q is under a scalar", ptr, s)
		}
	}
	return cur, segs[len(segs)-1]
}

func index(t testing.TB, s string, n int) int {
	t.Helper()
	i, err := strconv.Atoi(s)
	if err != nil || i < 0 || i >= n {
		t.Fatalf("bad test index %q (array of %d)", s, n)
	}
	return i
}

// edited returns the fixture with the edits applied, encoded.
func edited(t testing.TB, name string, edits ...edit) []byte {
	t.Helper()
	doc := fixture(t, name)
	for _, e := range edits {
		e(t, doc)
	}
	return canon.AppendValue(nil, doc)
}

// problemsOf returns err's problems as sorted "pointer code" lines.
func problemsOf(t testing.TB, err error) []string {
	t.Helper()
	var ie *InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("error is %T (%v), not *InvalidError", err, err)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("error does not match ErrInvalid: %v", err)
	}
	out := make([]string, len(ie.Problems))
	for i, p := range ie.Problems {
		out[i] = p.Pointer + " " + p.Code
		if p.Message == "" {
			t.Errorf("problem %s has no message", out[i])
		}
	}
	slices.Sort(out)
	return out
}
