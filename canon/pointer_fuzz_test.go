package canon

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

// FuzzParsePointer checks that parsing never panics and that what parses
// is exactly what it says: String() is the input, it reparses to the same
// segments, the segments rebuild the same text, and resolving it against
// the project's documents never panics and agrees across Resolve,
// ResolveAll and First. Seeds: every pointer in testdata/pointer/cases.json
// plus a few shapes near the edges of the syntax.
func FuzzParsePointer(f *testing.F) {
	cases, docs := loadPointerCases(f)
	for _, c := range cases.Cases {
		f.Add(c.Pointer)
	}
	for _, s := range []string{"", "/", "//", "/~", "/~0~1", "/*/**/*", "/**/**", "/0/00/-/-1", "/a\xffb", "#/a", "/9223372036854775808"} {
		f.Add(s)
	}
	trees := []any{nil, testDecode(f, `[[[]], {"": {"*": [0]}}]`)}
	for _, d := range docs {
		trees = append(trees, d)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePointer(s)
		if err != nil {
			checkFuzzPointerError(t, s, p, err)
			return
		}
		checkFuzzRoundTrip(t, s, p)
		for _, doc := range trees {
			checkFuzzResolve(t, p, doc)
		}
	})
}

func checkFuzzPointerError(t *testing.T, s string, p *Pointer, err error) {
	var pe *PointerError
	if p != nil || !errors.As(err, &pe) {
		t.Fatalf("%q: got %v, %v; want nil and a *PointerError", s, p, err)
	}
	if pe.Pointer != s || pe.Segment < 0 || pe.Offset < 0 || pe.Offset > len(s) || pe.Reason == "" || err.Error() == "" {
		t.Fatalf("%q: malformed error %+v", s, *pe)
	}
}

func checkFuzzRoundTrip(t *testing.T, s string, p *Pointer) {
	if p.String() != s {
		t.Fatalf("%q: String() = %q", s, p.String())
	}
	q, err := ParsePointer(p.String())
	if err != nil || !slices.Equal(q.Segments(), p.Segments()) {
		t.Fatalf("%q: reparse gave %v, %v", s, q, err)
	}
	var names []string
	for _, seg := range p.Segments() {
		names = append(names, seg.Name)
	}
	// Escaping is unique, so the names rebuild the text, except that the
	// root "/" rebuilds as "".
	if got := JoinPointer(names...); got != s && !(s == "/" && got == "") {
		t.Fatalf("%q: segments rebuild %q", s, got)
	}
}

func checkFuzzResolve(t *testing.T, p *Pointer, doc any) {
	all := p.ResolveAll(doc, nil)
	n := 0
	if !p.Resolve(doc, func(any) bool { n++; return true }) || n != len(all) {
		t.Fatalf("%q: Resolve saw %d values, ResolveAll %d", p, n, len(all))
	}
	first, ok := p.First(doc)
	if ok != (len(all) > 0) || ok && !reflect.DeepEqual(first, all[0]) {
		t.Fatalf("%q: First = %v, %v; ResolveAll = %v", p, first, ok, all)
	}
	if !p.HasWildcard() && len(all) > 1 {
		t.Fatalf("%q: %d values without a wildcard", p, len(all))
	}
}
