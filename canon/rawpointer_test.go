package canon

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/aqlstore/aqlstore/internal/race"
	"pgregory.net/rapid"
)

// rawNames are member names that stress the raw walk: escapes in the JSON
// (quote, backslash, control characters), escapes in the pointer (~ and
// /), names that are array indices or look like them, the wildcard
// spellings, and characters whose UTF-16 order differs from their UTF-8
// order.
var rawNames = []string{"a", "b", "", "0", "1", "01", "-", "10", "*", "**", "~", "/", "a/b", "m~n", "~1",
	`x"y`, `back\slash`, `\\`, `\"`, "tab\t", "ctl\x01", "nl\n", "é", "日本", "𝄞", "\uE000", "\u007f", "\u2028"}

func genRawScalar(t *rapid.T) any {
	switch rapid.IntRange(0, 5).Draw(t, "scalar") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, "bool")
	case 2:
		return Number(strconv.Itoa(rapid.IntRange(-20, 20).Draw(t, "int")))
	case 3:
		return rapid.SampledFrom(rawNames).Draw(t, "string")
	}
	return rapid.StringN(0, 4, -1).Draw(t, "unicode")
}

func genRawValue(t *rapid.T, depth int) any {
	kind := rapid.IntRange(0, 4).Draw(t, "kind")
	if depth <= 0 {
		kind = 4
	}
	switch kind {
	case 0, 1:
		m := map[string]any{}
		for range rapid.IntRange(0, 4).Draw(t, "members") {
			m[rapid.SampledFrom(rawNames).Draw(t, "name")] = genRawValue(t, depth-1)
		}
		return m
	case 2, 3:
		a := make([]any, rapid.IntRange(0, 4).Draw(t, "elements"))
		for i := range a {
			a[i] = genRawValue(t, depth-1)
		}
		return a
	}
	return genRawScalar(t)
}

// genRawPointer draws a pointer from names, indices and wildcards, or
// from the path of a node of doc with some segments widened.
func genRawPointer(t *rapid.T, doc any) *Pointer {
	var b []byte
	if rapid.Bool().Draw(t, "derived") {
		for v := doc; ; {
			var seg string
			switch c := v.(type) {
			case map[string]any:
				keys := SortedKeys(c)
				if len(keys) == 0 {
					return MustParsePointer(string(b))
				}
				seg = rapid.SampledFrom(keys).Draw(t, "member")
				v = c[seg]
			case []any:
				if len(c) == 0 {
					return MustParsePointer(string(b))
				}
				i := rapid.IntRange(0, len(c)-1).Draw(t, "element")
				seg, v = strconv.Itoa(i), c[i]
			default:
				return MustParsePointer(string(b))
			}
			if rapid.IntRange(0, 5).Draw(t, "stop") == 0 {
				return MustParsePointer(string(b))
			}
			switch rapid.IntRange(0, 5).Draw(t, "widen") {
			case 0:
				seg = "*"
			case 1:
				seg = "**"
			}
			b = append(b, '/')
			b = appendToken(b, seg)
		}
	}
	segs := append([]string{"*", "**", "0", "1", "2", "-", "01"}, rawNames...)
	for range rapid.IntRange(0, 4).Draw(t, "segments") {
		b = append(b, '/')
		b = appendToken(b, rapid.SampledFrom(segs).Draw(t, "segment"))
	}
	if len(b) == 0 && rapid.Bool().Draw(t, "slash") {
		b = append(b, '/')
	}
	return MustParsePointer(string(b))
}

// appendToken writes a wildcard as it is and any other name escaped.
func appendToken(b []byte, seg string) []byte {
	if seg == "*" || seg == "**" {
		return append(b, seg...)
	}
	return EscapeSegment(b, seg)
}

// rawTB is what the helpers need of testing.TB and *rapid.T.
type rawTB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// canonicalOf returns the canonical bytes of v and v as DecodeCanonical
// reads them back.
func canonicalOf(t rawTB, v any) ([]byte, any) {
	t.Helper()
	c, err := Canonicalize(nil, AppendValue(nil, v), nil)
	if err != nil {
		t.Fatalf("canonicalize %s: %v", AppendValue(nil, v), err)
	}
	doc, err := DecodeCanonical(c)
	if err != nil {
		t.Fatalf("decode %s: %v", c, err)
	}
	return c, doc
}

// rawResolved decodes every value ResolveRaw selects, in order.
func rawResolved(t rawTB, p *Pointer, c []byte) []any {
	t.Helper()
	var got []any
	p.ResolveRaw(c, func(v []byte) bool {
		x, err := DecodeCanonical(v)
		if err != nil {
			t.Fatalf("%s: value %q does not decode: %v", p, v, err)
		}
		got = append(got, x)
		return true
	})
	return got
}

func TestResolveRawMatchesResolve(t *testing.T) {
	var w RawWalker
	rapid.Check(t, func(t *rapid.T) {
		c, doc := canonicalOf(t, genRawValue(t, rapid.IntRange(0, 4).Draw(t, "depth")))
		for range 5 {
			p := genRawPointer(t, doc)
			want := p.ResolveAll(doc, nil)
			got := rawResolved(t, p, c)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q over %s:\nResolveRaw %s\nResolve    %s", p, c, AppendValue(nil, got), AppendValue(nil, want))
			}
			checkWalker(t, &w, p, c, got)
			checkStops(t, p, c, len(got))
		}
	})
}

// checkWalker: a kept RawWalker gives the same values, and each path
// leads from the root to its value.
func checkWalker(t *rapid.T, w *RawWalker, p *Pointer, c []byte, want []any) {
	n := 0
	w.Resolve(p, c, func(v []byte) bool {
		if x, _ := DecodeCanonical(v); n >= len(want) || !reflect.DeepEqual(x, want[n]) {
			t.Fatalf("%q: RawWalker.Resolve value %d is %s", p, n, v)
		}
		n++
		return true
	})
	m := 0
	w.ResolvePath(p, c, func(path []RawStep, v []byte) bool {
		if at := followRaw(c, path); string(at) != string(v) {
			t.Fatalf("%q: path %v leads to %s, not %s", p, path, at, v)
		}
		m++
		return true
	})
	if n != len(want) || m != len(want) {
		t.Fatalf("%q: Resolve %d, ResolvePath %d, want %d values", p, n, m, len(want))
	}
}

// followRaw walks path from the root of c with the plain raw functions.
func followRaw(c []byte, path []RawStep) []byte {
	for _, s := range path {
		var next []byte
		if s.Index >= 0 {
			i := 0
			EachElement(c, func(e []byte) bool {
				if i == s.Index {
					next = e
				}
				i++
				return next == nil
			})
		} else {
			EachMember(c, func(k, v []byte) bool {
				if string(k) == string(s.Name) {
					next = v
				}
				return next == nil
			})
		}
		c = next
	}
	return c
}

// checkStops: returning false stops the walk after exactly that value.
func checkStops(t *rapid.T, p *Pointer, c []byte, total int) {
	if total == 0 {
		return
	}
	stop := rapid.IntRange(1, total).Draw(t, "stop after")
	n := 0
	done := p.ResolveRaw(c, func([]byte) bool { n++; return n < stop })
	if done || n != stop {
		t.Fatalf("%q: stopping after %d: returned %v after %d values", p, stop, done, n)
	}
}

func TestResolveRaw(t *testing.T) {
	src := `{"a":{"b":[1,{"c":2},[3]],"x\"y":"q","a\\b":"bs","0":"zero"},"a/b":4,"m~n":5,"*":6,"":{"":7},` +
		`"arr":[{"id":"one"},{"n":1},{"id":"two","sub":{"id":"three"}}],"u":"\u00e9\ud834\udd1e"}`
	c, doc := canonicalOf(t, testDecode(t, src))
	for _, s := range []string{"", "/", "/a", "/a/b/0", "/a/b/1/c", "/a/b/2/0", "/a/b/3", "/a/b/-", "/a/b/01",
		`/a/x"y`, `/a/a\b`, `/a/a\\b`, "/a/0", "/a~1b", "/m~0n", "/*", "/**", "//", "/*/*", "/**/id", "/arr/*/id",
		"/arr/**", "/**/**/id", "/**/b/*", "/a/**/c", "/u", "/nothing", "/a/b/1/c/d", "/arr/0/id/x", "/**/0"} {
		p := MustParsePointer(s)
		got, want := rawResolved(t, p, c), p.ResolveAll(doc, nil)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: ResolveRaw %s, Resolve %s", s, AppendValue(nil, got), AppendValue(nil, want))
		}
	}
}

// TestResolveRawMalformed: bytes that are not canonical JSON select
// little, but never panic.
func TestResolveRawMalformed(t *testing.T) {
	for _, b := range []string{"", "{", "[", `{"a"`, `{"a":`, `{"a":}`, `{"a":1,}`, `[1,`, `[,]`, `{"a":[1,2}`,
		`{"a\`, `{"\u12":1}`, `{"a":"x`, `"abc`, `[[[[`, `}`, `{"a":1}{"b":2}`, `{a:1}`} {
		for _, s := range []string{"", "/a", "/a/0", "/*", "/**", "/**/a", "/*/1"} {
			MustParsePointer(s).ResolveRaw([]byte(b), func([]byte) bool { return true })
		}
	}
}

func TestRawNameEquals(t *testing.T) {
	cases := []struct {
		q, name string
		want    bool
	}{
		{`"a"`, "a", true},
		{`"a"`, "b", false},
		{`""`, "", true},
		{`"a\\b"`, `a\b`, true},
		{`"a\\b"`, `a\\b`, false}, // same bytes, but the body unescapes to three characters
		{`"x\"y"`, `x"y`, true},
		{`"x\"y"`, `x\"y`, false},
		{`"\u0041"`, "A", true},
		{`"\u00e9"`, "é", true},
		{`"\ud834\udd1e"`, "𝄞", true},
		{`"\ud834"`, "\uFFFD", true},
		{`"\/"`, "/", true},
		{`"\t\n\r\b\f"`, "\t\n\r\b\f", true},
		{`"ab\"`, "ab", false},
		{`"\x"`, "x", false},
		{`"\u12"`, "\x12", false},
		{`"a\\"`, `a\`, true},
		{`"a\\"`, `a\\`, false},
		{`a`, "a", false},
	}
	for _, c := range cases {
		if got := rawNameEquals([]byte(c.q), c.name); got != c.want {
			t.Errorf("rawNameEquals(%s, %q) = %v, want %v", c.q, c.name, got, c.want)
		}
	}
}

// TestRawNameEqualsMatchesRawString: on every quoted form jsontext writes,
// comparing as it decodes agrees with decoding first.
func TestRawNameEqualsMatchesRawString(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.OneOf(rapid.SampledFrom(rawNames), rapid.StringN(0, 6, -1)).Draw(t, "name")
		other := rapid.OneOf(rapid.Just(name), rapid.SampledFrom(rawNames), rapid.StringN(0, 6, -1)).Draw(t, "other")
		q := AppendValue(nil, name)
		if got, want := rawNameEquals(q, other), name == other; got != want {
			t.Fatalf("rawNameEquals(%s, %q) = %v", q, other, got)
		}
	})
}

func TestResolveRawNoAlloc(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under the race detector are its own")
	}
	c, _ := canonicalOf(t, testDecode(t, `{"a":{"x\"y":[0,1,{"b":true}]},"c":[{"d":1},{"d":2},{"e":{"d":3}}]}`))
	sink := 0
	count := func([]byte) bool { sink++; return true }
	for _, s := range []string{"/a/x\"y/2/b", "/c/1/d", "/missing"} {
		p := MustParsePointer(s)
		if n := testing.AllocsPerRun(100, func() { p.ResolveRaw(c, count) }); n != 0 {
			t.Errorf("%q: %v allocations per ResolveRaw", s, n)
		}
	}
	var w RawWalker
	for _, s := range []string{"/c/*/d", "/**/d", "/**", "/*/**/b"} {
		p := MustParsePointer(s)
		if n := testing.AllocsPerRun(100, func() { w.Resolve(p, c, count) }); n != 0 {
			t.Errorf("%q: %v allocations per RawWalker.Resolve", s, n)
		}
		if n := testing.AllocsPerRun(100, func() { p.ResolveRaw(c, count) }); n != 0 {
			t.Errorf("%q: %v allocations per pooled ResolveRaw", s, n)
		}
	}
}

// TestRawWalkerHoldsNoDocument: between calls the walker keeps no slice of
// the last document, which may be memory a store reuses.
func TestRawWalkerHoldsNoDocument(t *testing.T) {
	c, _ := canonicalOf(t, testDecode(t, `{"a":[{"b":1},{"b":2}]}`))
	var w RawWalker
	w.ResolvePath(MustParsePointer("/**/b"), c, func([]RawStep, []byte) bool { return true })
	for i, f := range w.frames {
		if f.node != nil || f.step.Name != nil {
			t.Fatalf("frame %d still holds %q / %q", i, f.node, f.step.Name)
		}
	}
	for i, s := range w.path {
		if s.Name != nil {
			t.Fatalf("path step %d still holds %q", i, s.Name)
		}
	}
}

func BenchmarkResolveRaw(b *testing.B) {
	src := `{"tool":{"id":"t-1","name":"Example"},"price":{"amount":"99.90","currency":"EUR"},` +
		`"actions":[{"id":"a","side_effects":"none"},{"id":"b","side_effects":"irreversible"},{"id":"c"}],` +
		`"tags":["x","y","z"],"meta":{"deep":{"deeper":{"id":"d"}}}}`
	c, doc := canonicalOf(b, testDecode(b, src))
	for _, s := range []string{"/price/amount", "/actions/*/side_effects", "/**/id"} {
		p := MustParsePointer(s)
		b.Run(s+"/raw", func(b *testing.B) {
			b.ReportAllocs()
			var w RawWalker
			for b.Loop() {
				w.Resolve(p, c, func([]byte) bool { return true })
			}
		})
		b.Run(s+"/tree", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Resolve(doc, func(any) bool { return true })
			}
		})
	}
}
