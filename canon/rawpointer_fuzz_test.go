package canon

import (
	"reflect"
	"testing"
)

// FuzzResolveRaw checks ResolveRaw against Resolve: on input that
// canonicalizes, the raw walk over the canonical bytes selects the same
// values in the same order as Resolve over the decoded tree, and the
// kept-walker and path-reporting variants agree with it; on any input at
// all, canonical or not, it never panics, and resolving through a Members value
// selects exactly what the walk over the bytes does; through a Members value
// reset with ResetCanonical it never panics either, and over canonical
// bytes selects what Resolve does.
func FuzzResolveRaw(f *testing.F) {
	for _, s := range []struct{ doc, ptr string }{
		{`{"a":{"b":[1,{"c":2}]}}`, "/a/b/1/c"},
		{`{"a":[{"id":1},{"id":2}],"b":{"id":3}}`, "/**/id"},
		{`{"x\"y":{"a\\b":[true,null]}}`, `/x"y/a\b/*`},
		{`{"":{"":0},"*":1,"~":2,"/":3}`, "/*/**"},
		{`[[[]],{"0":[0,1]}]`, "/*/0"},
		{`{"é":1,"\ue000":2,"𝄞":3}`, "/*"},
		{`{"a":1,}`, "/**"},
		{`{"a":[1,`, "/a/*"},
	} {
		f.Add(s.doc, s.ptr)
	}
	var w RawWalker
	f.Fuzz(func(t *testing.T, doc, ptr string) {
		p, err := ParsePointer(ptr)
		if err != nil {
			return
		}
		p.ResolveRaw([]byte(doc), func([]byte) bool { return true }) // must not panic
		d := NewMembers([]byte(doc))                                 // through the table, exactly the walk over the bytes
		checkDocWalker(t, &w, p, d)
		checkDocMembers(t, d)
		d.ResetCanonical([]byte(doc)) // late names read from the end: no panic, whatever the bytes
		p.ResolveMembers(d, func([]byte) bool { return true })
		d.EachMember(func(_, _ []byte) bool { return true })
		c, err := Canonicalize(nil, []byte(doc), nil)
		if err != nil {
			return
		}
		tree, err := DecodeCanonical(c)
		if err != nil {
			t.Fatalf("canonical %s does not decode: %v", c, err)
		}
		want := p.ResolveAll(tree, nil)
		got := rawResolved(t, p, c)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q over %s:\nResolveRaw %s\nResolve    %s", p, c, AppendValue(nil, got), AppendValue(nil, want))
		}
		d.ResetCanonical(c)
		if got := rawDocResolved(t, p, d); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q over %s:\nResolveMembers (canonical) %s\nResolve                   %s", p, c, AppendValue(nil, got), AppendValue(nil, want))
		}
		n := 0
		w.ResolvePath(p, c, func(path []RawStep, v []byte) bool {
			if x, _ := DecodeCanonical(v); n >= len(want) || !reflect.DeepEqual(x, want[n]) {
				t.Fatalf("%q: ResolvePath value %d is %s", p, n, v)
			}
			if at := followRaw(c, path); string(at) != string(v) {
				t.Fatalf("%q: path %v leads to %s, not %s", p, path, at, v)
			}
			n++
			return true
		})
		if n != len(want) {
			t.Fatalf("%q: ResolvePath saw %d values, want %d", p, n, len(want))
		}
	})
}
