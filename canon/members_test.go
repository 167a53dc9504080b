package canon

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/aqlstore/aqlstore/internal/race"
	"pgregory.net/rapid"
)

// TestMembersMatchesResolve: resolving through a Members table selects
// what Resolve does, and the same paths as the walk over the bytes, with
// one Members reused across documents and several pointers per document
// (so the lazily built table is met half built, built, and reset).
func TestMembersMatchesResolve(t *testing.T) {
	checkMembersResolve(t, (*Members).Reset)
}

// checkMembersResolve is TestMembersMatchesResolve with the table made
// over each document by reset.
func checkMembersResolve(t *testing.T, reset func(*Members, []byte)) {
	var w RawWalker
	var d Members
	rapid.Check(t, func(t *rapid.T) {
		c, doc := canonicalOf(t, genRawValue(t, rapid.IntRange(0, 4).Draw(t, "depth")))
		reset(&d, c)
		for range 5 {
			p := genRawPointer(t, doc)
			want := p.ResolveAll(doc, nil)
			if got := rawDocResolved(t, p, &d); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q over %s:\nResolveMembers %s\nResolve       %s", p, c, AppendValue(nil, got), AppendValue(nil, want))
			}
			checkDocWalker(t, &w, p, &d)
		}
		checkDocMembers(t, &d)
	})
}

func rawDocResolved(t rawTB, p *Pointer, d *Members) []any {
	var got []any
	p.ResolveMembers(d, func(v []byte) bool {
		x, err := DecodeCanonical(v)
		if err != nil {
			t.Fatalf("%q: selected %q: %v", p, v, err)
		}
		got = append(got, x)
		return true
	})
	return got
}

// checkDocWalker: a kept walker gives, through the table, the values and
// paths (byte for byte) the walk over the bytes gives, and stops where
// told.
func checkDocWalker(t rawTB, w *RawWalker, p *Pointer, d *Members) {
	want, got := rawValues(w, p, d, false), rawValues(w, p, d, true)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q over %s: ResolveDoc %q, Resolve %q", p, d.Bytes(), got, want)
	}
	wantPaths, gotPaths := rawPaths(w, p, d, false), rawPaths(w, p, d, true)
	if !reflect.DeepEqual(gotPaths, wantPaths) {
		t.Fatalf("%q over %s: ResolvePathDoc %q, ResolvePath %q", p, d.Bytes(), gotPaths, wantPaths)
	}
	for stop := 1; stop <= len(want); stop++ {
		n := 0
		done := p.ResolveMembers(d, func([]byte) bool { n++; return n < stop })
		if done || n != stop {
			t.Fatalf("%q: stopping after %d: returned %v after %d values", p, stop, done, n)
		}
	}
}

func rawValues(w *RawWalker, p *Pointer, d *Members, table bool) []string {
	out := []string{}
	fn := func(v []byte) bool { out = append(out, string(v)); return true }
	if table {
		w.ResolveDoc(p, d, fn)
	} else {
		w.Resolve(p, d.Bytes(), fn)
	}
	return out
}

func rawPaths(w *RawWalker, p *Pointer, d *Members, table bool) []string {
	out := []string{}
	fn := func(path []RawStep, v []byte) bool {
		s := ""
		for _, st := range path {
			s += "/" + string(st.Name) + "#" + string(rune('0'+st.Index+1))
		}
		out = append(out, s+"="+string(v))
		return true
	}
	if table {
		w.ResolvePathDoc(p, d, fn)
	} else {
		w.ResolvePath(p, d.Bytes(), fn)
	}
	return out
}

// checkDocMembers: the table's members are EachMember's.
func checkDocMembers(t rawTB, d *Members) {
	var want, got []string
	EachMember(d.Bytes(), func(k, v []byte) bool { want = append(want, string(k)+":"+string(v)); return true })
	d.EachMember(func(k, v []byte) bool { got = append(got, string(k)+":"+string(v)); return true })
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: Members.EachMember %q, EachMember %q", d.Bytes(), got, want)
	}
}

// TestMembersOdd: on bytes that are not canonical (duplicate names, names
// escaped differently, malformed members, other roots) the table path
// selects exactly what the walk over the bytes does.
func TestMembersOdd(t *testing.T) {
	docs := []string{
		`{"a":1,"a":2}`, `{"\u0061":1,"a":2,"b":{"a":3}}`, `{"a\\b":1,"a\u005cb":2}`, `{"x\"y":[1,2],"x\u0022y":3}`,
		`{"a":,"b":1}`, `{"a":1,"b":}`, `{"a":1,"b"`, `{"a":1,}`, `{"a":1 x}`, `{"a":1,"b":[1,{"c":2}]`, `{"a"}`,
		`{}`, `{`, `{"":{"":1}}`, `[]`, `[{"a":1},{"a":2}]`, `"a"`, `1`, `null`, ``, `{"a":{"b":1},"a":{"b":2}}`,
	}
	ptrs := []string{"", "/", "/a", "/a/b", "/b", "/b/1/c", "/*", "/**", "/*/b", "/**/a", "/0", "/0/a", "/*/a",
		`/a\b`, `/x"y`, `/x"y/1`, "//", "/*/*", "/**/**"}
	var w RawWalker
	d := NewMembers(nil)
	for _, src := range docs {
		d.Reset([]byte(src))
		for _, s := range ptrs {
			checkDocWalker(t, &w, MustParsePointer(s), d)
		}
		checkDocMembers(t, d)
	}
}

func TestMembersNoAlloc(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under the race detector are its own")
	}
	c, _ := canonicalOf(t, testDecode(t, `{"a":{"x\"y":[0,1,{"b":true}]},"c":[{"d":1},{"d":2},{"e":{"d":3}}],"z":1}`))
	sink := 0
	count := func([]byte) bool { sink++; return true }
	var w RawWalker
	d := NewMembers(c)
	for _, s := range []string{"/a/x\"y/2/b", "/c/1/d", "/missing", "/z", "/c/*/d", "/**/d", "/**", "/*/**/b", "/*"} {
		p := MustParsePointer(s)
		if n := testing.AllocsPerRun(100, func() { d.Reset(c); w.ResolveDoc(p, d, count) }); n != 0 {
			t.Errorf("%q: %v allocations per RawWalker.ResolveDoc", s, n)
		}
		if n := testing.AllocsPerRun(100, func() { d.Reset(c); p.ResolveMembers(d, count) }); n != 0 {
			t.Errorf("%q: %v allocations per ResolveMembers", s, n)
		}
	}
}

// TestMembersHoldsNoDocument: Reset(nil) drops the table's references, and
// the walker keeps none to the Members.
func TestMembersHoldsNoDocument(t *testing.T) {
	c, _ := canonicalOf(t, testDecode(t, `{"a":[{"b":1},{"b":2}],"c":3}`))
	var w RawWalker
	d := NewMembers(c)
	w.ResolvePathDoc(MustParsePointer("/**/b"), d, func([]RawStep, []byte) bool { return true })
	if w.doc != nil {
		t.Fatal("walker still holds the Members")
	}
	d.Reset(nil)
	for i, e := range d.members[:cap(d.members)] {
		if e.key != nil || e.value != nil {
			t.Fatalf("member %d still holds %q / %q", i, e.key, e.value)
		}
	}
}

// TestMembersCanonicalMatchesResolve is TestMembersMatchesResolve over
// ResetCanonical, whose lookups of late names read the members from the
// end: the same values and paths, the table met read from both ends.
func TestMembersCanonicalMatchesResolve(t *testing.T) {
	checkMembersResolve(t, (*Members).ResetCanonical)
}

// TestMembersReadsLateNamesFromTheEnd: a canonical document's late member
// is found without reading the members before it (here bytes no reader
// can read, which the lookup must never reach), and the table then lists
// the members in order once read from both ends.
func TestMembersReadsLateNamesFromTheEnd(t *testing.T) {
	b := []byte(`{"a":[1,{"b":"x\"]}"}],"p":tru,"t":{"u":"\\\\"},"v":"w\"x","z":[1,2]}`)
	var d Members
	d.ResetCanonical(b)
	for _, c := range []struct{ name, want string }{{"t", `{"u":"\\\\"}`}, {"z", `[1,2]`}, {"v", `"w\"x"`}, {"s", ""}} {
		_, v, ok := d.lookup(c.name)
		if string(v) != c.want || ok != (c.want != "") {
			t.Errorf("lookup %q = %s, %v; want %s", c.name, v, ok, c.want)
		}
	}
	if _, v, ok := d.lookup("a"); !ok || string(v) != `[1,{"b":"x\"]}"}]` {
		t.Errorf("lookup a = %s, %v", v, ok)
	}
	d.ResetCanonical([]byte(`{"a":{"b":1},"q":"r","x":null}`))
	d.lookup("x")
	d.lookup("q")
	checkDocMembers(t, &d)
}

// TestLastQuote: the eight-bytes-a-step search finds the quote
// bytes.LastIndexByte does, among bytes next to a quote's value ('!',
// '#', 0xa2) and those the zero-byte test borrows across (0x00, 0x01).
func TestLastQuote(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(rapid.SampledFrom([]byte{'"', '\\', '!', '#', 0xa2, 0x00, 0x01, 'a'}), 0, 40).Draw(t, "b")
		for i := 0; i <= len(b); i++ {
			if got, want := lastQuote(b, i), bytes.LastIndexByte(b[:i], '"'); got != want {
				t.Fatalf("lastQuote(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
	})
}
