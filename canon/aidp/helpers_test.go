package aidp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// readExample returns a testdata file.
func readExample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeExample returns a testdata file decoded into canon's value model,
// a fresh copy each call so that tests may mutate it.
func decodeExample(t testing.TB, name string) map[string]any {
	t.Helper()
	v, err := canon.Decode(readExample(t, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

// deleted, given to edit as a value, removes the member.
type deletedT struct{}

var deleted deletedT

// edit sets (or, with deleted, removes) the value at a plain JSON Pointer
// of doc; the parents must exist. Array elements are addressed by index,
// and index len appends.
func edit(t testing.TB, doc any, ptr string, v any) {
	t.Helper()
	segs := strings.Split(ptr, "/")[1:]
	parent := doc
	for _, s := range segs[:len(segs)-1] {
		parent = child(t, parent, s)
	}
	last := segs[len(segs)-1]
	switch p := parent.(type) {
	case map[string]any:
		if v == deleted {
			delete(p, last)
			return
		}
		p[last] = v
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i >= len(p) {
			t.Fatalf("edit %s: bad index", ptr)
		}
		p[i] = v
	default:
		t.Fatalf("edit %s: parent is %T", ptr, parent)
	}
}

func child(t testing.TB, v any, seg string) any {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		return v[seg]
	case []any:
		i, err := strconv.Atoi(seg)
		if err != nil || i >= len(v) {
			t.Fatalf("no element %s", seg)
		}
		return v[i]
	}
	t.Fatalf("cannot descend into %T at %s", v, seg)
	return nil
}

func encode(v any) []byte { return canon.AppendValue(nil, v) }
