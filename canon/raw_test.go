package canon

import (
	"testing"
)

func TestRawNavigation(t *testing.T) {
	c, err := Canonicalize(nil, []byte(`{"a":{"b":[1,"x\"y",{"c":null}]},"d\\n":"e","q":"\u00e9"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := Lookup(c, "a", "b"); !ok || string(v) != `[1,"x\"y",{"c":null}]` {
		t.Fatalf("a/b = %s %v", v, ok)
	}
	var elems []string
	v, _ := Lookup(c, "a", "b")
	EachElement(v, func(e []byte) bool { elems = append(elems, string(e)); return true })
	if len(elems) != 3 || elems[1] != `"x\"y"` {
		t.Fatalf("elements %q", elems)
	}
	if v, ok := Member(c, "d\\n"); !ok || string(v) != `"e"` {
		t.Fatalf("escaped name: %s %v", v, ok)
	}
	if v, ok := Member(c, "q"); !ok {
		t.Fatal("q missing")
	} else if s, ok := RawString(v); !ok || s != "é" {
		t.Fatalf("RawString = %q", s)
	}
	if _, ok := Lookup(c, "a", "zzz"); ok {
		t.Fatal("found a missing member")
	}
	EachElement([]byte(`[]`), func([]byte) bool { t.Fatal("element in []"); return false })
}

// The scanner must not panic on malformed input, only give up.
func FuzzRawNavigation(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":[1,{"b":"\\"}]}`, `{"a"`, `{"a":"}`, `[1,`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		Lookup(b, "a", "b")
		EachElement(b, func([]byte) bool { return true })
		SkipValue(b, 0)
		DetectKind(b)
	})
}

// TestMemberEscapedNames pins that a member name with escapes matches only
// its decoded form: the raw body `a\\b` is the three characters a, \, b,
// not the four characters of the raw text.
func TestMemberEscapedNames(t *testing.T) {
	doc := []byte(`{"a\\b":1,"c\"d":2}`)
	for _, tc := range []struct {
		name string
		want bool
	}{
		{`a\b`, true},
		{`a\\b`, false},
		{`c"d`, true},
		{`c\"d`, false},
	} {
		if _, ok := Member(doc, tc.name); ok != tc.want {
			t.Errorf("Member(%s, %q) found=%v, want %v", doc, tc.name, ok, tc.want)
		}
	}
}
