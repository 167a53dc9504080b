package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/aqlstore/aqlstore/internal/race"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// testDecode builds a document tree in the decoded-document model with
// encoding/json, independently of Decode, so the pointer tests do not hang
// on the decoder's own behaviour.
func testDecode(t testing.TB, src string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("testDecode %q: %v", src, err)
	}
	return testNumbers(v)
}

// testNumbers turns json.Number into Number, in place.
func testNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		return Number(v)
	case []any:
		for i := range v {
			v[i] = testNumbers(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = testNumbers(v[k])
		}
	}
	return v
}

// ptrJSONEqual is structural JSON equality with numbers compared by value,
// as RFC 6902's "test" operation and our eq operator require.
func ptrJSONEqual(a, b any) bool {
	switch a := a.(type) {
	case Number:
		b, ok := b.(Number)
		if !ok {
			return false
		}
		x, okx := new(big.Rat).SetString(string(a))
		y, oky := new(big.Rat).SetString(string(b))
		return okx && oky && x.Cmp(y) == 0
	case []any:
		b, ok := b.([]any)
		return ok && slices.EqualFunc(a, b, ptrJSONEqual)
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if w, ok := b[k]; !ok || !ptrJSONEqual(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// ptrJSON renders values for failure messages.
func ptrJSON(v any) string {
	return string(AppendValue(nil, v))
}

const ptrTestDoc = `{
	"tools": [
		{"id": "a", "tags": ["x", "y"]},
		{"id": "b", "tags": []}
	],
	"meta": {"0": "zero", "07": "lead", "-": "dash", "a/b": 1, "m~n": 2, "": "empty", "*": "star"},
	"n": [10, 20, 30]
}`

func TestParsePointerErrors(t *testing.T) {
	for _, c := range []struct {
		in      string
		segment int
		offset  int
		reason  string
	}{
		{"a", 0, 0, `must start with "/"`},
		{"a/b", 0, 0, `must start with "/"`},
		{"*", 0, 0, `must start with "/"`},
		{"#/a", 0, 0, `URI fragment`},
		{"#", 0, 0, `URI fragment`},
		{"/a/~2", 2, 3, `invalid escape "~2"`},
		{"/~", 1, 1, `invalid escape "~"`},
		{"/a~", 1, 2, `invalid escape "~"`},
		{"/~0~1~", 1, 5, `invalid escape "~"`},
		{"/x/y/~a~0", 3, 5, `invalid escape "~a"`},
		{"/~é", 1, 1, `invalid escape "~é"`},
		{"/~~0", 1, 1, `invalid escape "~~"`},
		{"/ok/~/", 2, 4, `invalid escape "~"`},
		{"/a/\xff", 2, 3, "invalid UTF-8"},
		{"/ok/a\xffb", 2, 5, "invalid UTF-8"},
	} {
		_, err := ParsePointer(c.in)
		var pe *PointerError
		if !errors.As(err, &pe) {
			t.Errorf("ParsePointer(%q) = %v, want a *PointerError", c.in, err)
			continue
		}
		if pe.Pointer != c.in || pe.Segment != c.segment || pe.Offset != c.offset || !strings.Contains(pe.Reason, c.reason) {
			t.Errorf("ParsePointer(%q) = %+v, want segment %d offset %d reason ~ %q", c.in, *pe, c.segment, c.offset, c.reason)
		}
		if c.segment > 0 && !strings.Contains(err.Error(), fmt.Sprintf("segment %d ", c.segment)) {
			t.Errorf("ParsePointer(%q): message %q does not name segment %d", c.in, err, c.segment)
		}
	}
}

func TestPointerErrorMessage(t *testing.T) {
	_, err := ParsePointer("/a/~2")
	want := `canon: pointer "/a/~2": segment 2 "~2": invalid escape "~2" (use ~0 for "~" and ~1 for "/")`
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	// A hostile pointer must not flood the log line that reports it.
	long := "/" + strings.Repeat("é", 3000)
	_, err = ParsePointer(long)
	if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), "MaxBytes=1024") {
		t.Fatalf("long pointer: %v", err)
	}
}

func TestPointerLimits(t *testing.T) {
	check := func(s string, lim PointerLimits, segment, offset int, reason string) {
		t.Helper()
		_, err := ParsePointerLimits(s, lim)
		var pe *PointerError
		if reason == "" {
			if err != nil {
				t.Errorf("ParsePointerLimits(%.20q, %+v): %v", s, lim, err)
			}
			return
		}
		if !errors.As(err, &pe) || pe.Segment != segment || pe.Offset != offset || !strings.Contains(pe.Reason, reason) {
			t.Errorf("ParsePointerLimits(%.20q, %+v) = %v, want segment %d offset %d %q", s, lim, err, segment, offset, reason)
		}
	}
	def := PointerLimits{}
	check("/"+strings.Repeat("a", 1023), def, 0, 0, "")
	check("/"+strings.Repeat("a", 1024), def, 0, 1024, "MaxBytes=1024")
	check(strings.Repeat("/a", 64), def, 0, 0, "")
	check(strings.Repeat("/a", 65), def, 65, 129, "MaxSegments=64")
	check(strings.Repeat("/", 65), def, 65, 65, "MaxSegments=64")
	check("/abcd", PointerLimits{MaxBytes: 5}, 0, 0, "")
	check("/abcde", PointerLimits{MaxBytes: 5}, 0, 5, "MaxBytes=5")
	check("/a/b", PointerLimits{MaxSegments: 2}, 0, 0, "")
	check("/a/b/c", PointerLimits{MaxSegments: 2}, 3, 5, "MaxSegments=2")
	check(strings.Repeat("/a", 100), PointerLimits{MaxSegments: 100}, 0, 0, "")
	check(strings.Repeat("/a", 65), PointerLimits{MaxSegments: -1}, 65, 129, "MaxSegments=64")
}

func TestMustParsePointerPanics(t *testing.T) {
	defer func() {
		if _, ok := recover().(*PointerError); !ok {
			t.Fatal("MustParsePointer did not panic with a *PointerError")
		}
	}()
	MustParsePointer("/~")
}

func TestParsePointerSegments(t *testing.T) {
	name := func(n string, idx int) Segment { return Segment{Kind: SegName, Name: n, Index: idx} }
	star := Segment{Kind: SegWildcard, Name: "*", Index: -1}
	descend := Segment{Kind: SegDescend, Name: "**", Index: -1}
	for _, c := range []struct {
		in   string
		want []Segment
	}{
		{"", nil},
		{"/", nil},
		{"//", []Segment{name("", -1), name("", -1)}},
		{"/a/", []Segment{name("a", -1), name("", -1)}},
		{"/a~1b/m~0n", []Segment{name("a/b", -1), name("m~n", -1)}},
		{"/~01", []Segment{name("~1", -1)}},
		{"/~10", []Segment{name("/0", -1)}},
		{"/0", []Segment{name("0", 0)}},
		{"/10", []Segment{name("10", 10)}},
		{"/00", []Segment{name("00", -1)}},
		{"/01", []Segment{name("01", -1)}},
		{"/-", []Segment{name("-", -1)}},
		{"/-1", []Segment{name("-1", -1)}},
		{"/+1", []Segment{name("+1", -1)}},
		{"/ 1", []Segment{name(" 1", -1)}},
		{"/1e0", []Segment{name("1e0", -1)}},
		{"/9223372036854775807", []Segment{name("9223372036854775807", 9223372036854775807)}},
		{"/9223372036854775808", []Segment{name("9223372036854775808", -1)}},
		{"/*", []Segment{star}},
		{"/**", []Segment{descend}},
		{"/***", []Segment{name("***", -1)}},
		{"/a*", []Segment{name("a*", -1)}},
		{"/~0*", []Segment{name("~*", -1)}},
		{"/**/x/*", []Segment{descend, name("x", -1), star}},
	} {
		p, err := ParsePointer(c.in)
		if err != nil {
			t.Errorf("ParsePointer(%q): %v", c.in, err)
			continue
		}
		if got := p.Segments(); !slices.Equal(got, c.want) {
			t.Errorf("ParsePointer(%q).Segments() = %+v, want %+v", c.in, got, c.want)
		}
		if p.String() != c.in || p.IsRoot() != (len(c.want) == 0) {
			t.Errorf("ParsePointer(%q): String %q IsRoot %v", c.in, p.String(), p.IsRoot())
		}
		wild := slices.ContainsFunc(c.want, func(s Segment) bool { return s.Kind != SegName })
		if p.HasWildcard() != wild {
			t.Errorf("ParsePointer(%q).HasWildcard() = %v", c.in, p.HasWildcard())
		}
	}
}

func TestPointerSegmentsIsACopy(t *testing.T) {
	p := MustParsePointer("/a/b")
	p.Segments()[0].Name = "changed"
	if p.Segments()[0].Name != "a" {
		t.Fatal("Segments exposes the Pointer's own slice")
	}
}

func TestPointerResolve(t *testing.T) {
	doc := testDecode(t, ptrTestDoc)
	for _, c := range []struct {
		ptr  string
		want string // JSON array of the values, in order
	}{
		{"", "[" + ptrTestDoc + "]"},
		{"/", "[" + ptrTestDoc + "]"},
		{"/tools/0/id", `["a"]`},
		{"/tools/1/id", `["b"]`},
		{"/tools/2", `[]`},
		{"/tools/-", `[]`},
		{"/tools/00", `[]`},
		{"/tools/01", `[]`},
		{"/tools/-1", `[]`},
		{"/tools/id", `[]`},
		{"/n/0", `[10]`},
		{"/n/0/x", `[]`},
		{"/meta/0", `["zero"]`},
		{"/meta/07", `["lead"]`},
		{"/meta/-", `["dash"]`},
		{"/meta/a~1b", `[1]`},
		{"/meta/m~0n", `[2]`},
		{"/meta/", `["empty"]`},
		{"/meta/a/b", `[]`},
		{"/nope", `[]`},
		{"/meta/*", `["empty", "star", "dash", "zero", "lead", 1, 2]`},
		{"/tools/*/id", `["a", "b"]`},
		{"/tools/*/tags/*", `["x", "y"]`},
		{"/tools/*/tags/0", `["x"]`},
		{"/n/*", `[10, 20, 30]`},
		{"/n/0/*", `[]`},
		{"/*/0", `["zero", 10, {"id": "a", "tags": ["x", "y"]}]`},
		{"/**/id", `["a", "b"]`},
		{"/**/0", `["zero", 10, {"id": "a", "tags": ["x", "y"]}, "x"]`},
		{"/tools/0/id/**", `["a"]`},
		{"/tools/1/tags/**", `[[]]`},
		{"/tools/**", `[
			[{"id": "a", "tags": ["x", "y"]}, {"id": "b", "tags": []}],
			{"id": "a", "tags": ["x", "y"]}, "a", ["x", "y"], "x", "y",
			{"id": "b", "tags": []}, "b", []]`},
		{"/tools/**/*", `[
			{"id": "a", "tags": ["x", "y"]}, "a", ["x", "y"], "x", "y",
			{"id": "b", "tags": []}, "b", []]`},
		{"/tools/*/**", `[
			{"id": "a", "tags": ["x", "y"]}, "a", ["x", "y"], "x", "y",
			{"id": "b", "tags": []}, "b", []]`},
		{"/**/**/tags/*", `["x", "y"]`},
		{"/**/nope", `[]`},
	} {
		p := MustParsePointer(c.ptr)
		got := p.ResolveAll(doc, nil)
		want := testDecode(t, c.want).([]any)
		if !ptrJSONEqual(got, want) {
			t.Errorf("%q: got %s, want %s", c.ptr, ptrJSON(got), ptrJSON(want))
		}
	}
}

// TestPointerDescendVisitsOnce checks that a node reached along several
// routes through ** segments is selected once, in document order.
func TestPointerDescendVisitsOnce(t *testing.T) {
	doc := testDecode(t, `{"a": {"a": {"a": 1}}}`)
	all := `[{"a": {"a": {"a": 1}}}, {"a": {"a": 1}}, {"a": 1}, 1]`
	for ptr, want := range map[string]string{
		"/**":       all,
		"/**/**":    all,
		"/**/**/**": all,
		"/**/a":     `[{"a": {"a": 1}}, {"a": 1}, 1]`,
		"/**/a/**":  `[{"a": {"a": 1}}, {"a": 1}, 1]`,
		"/**/**/a":  `[{"a": {"a": 1}}, {"a": 1}, 1]`,
		"/**/a/a":   `[{"a": 1}, 1]`,
		"/a/**/a":   `[{"a": 1}, 1]`,
		"/**/a/*":   `[{"a": 1}, 1]`,
		"/*/**/*/*": `[1]`,
	} {
		got := MustParsePointer(ptr).ResolveAll(doc, nil)
		if w := testDecode(t, want); !ptrJSONEqual(got, w) {
			t.Errorf("%q: got %s, want %s", ptr, ptrJSON(got), ptrJSON(w))
		}
	}
}

func TestPointerScalarDocuments(t *testing.T) {
	for _, src := range []string{`42`, `"text"`, `null`, `true`, `[]`, `{}`} {
		doc := testDecode(t, src)
		for ptr, n := range map[string]int{"": 1, "/": 1, "/**": 1, "/*": 0, "/0": 0, "/a": 0, "/*/**": 0} {
			if got := MustParsePointer(ptr).ResolveAll(doc, nil); len(got) != n || n == 1 && !ptrJSONEqual(got[0], doc) {
				t.Errorf("%s %q: got %s, want %d value(s)", src, ptr, ptrJSON(got), n)
			}
		}
	}
}

// TestPointerOrderIsDeterministic resolves over a map with many members
// many times: Go randomizes map iteration, the result must not vary.
func TestPointerOrderIsDeterministic(t *testing.T) {
	m := map[string]any{}
	for i := range 200 {
		m[fmt.Sprintf("k%03d\U0001F600", i)] = Number(fmt.Sprint(i))
		m[fmt.Sprintf("k%03d\uFF00", i)] = Number(fmt.Sprint(-i))
	}
	doc := map[string]any{"m": m, "l": []any{m, m}}
	for _, ptr := range []string{"/m/*", "/**", "/*/*", "/l/*/*"} {
		p := MustParsePointer(ptr)
		first := p.ResolveAll(doc, nil)
		for range 20 {
			if got := p.ResolveAll(doc, nil); !reflect.DeepEqual(got, first) {
				t.Fatalf("%q: order changed between runs", ptr)
			}
		}
	}
	var want []any
	for _, k := range SortedKeys(m) {
		want = append(want, m[k])
	}
	if got := MustParsePointer("/m/*").ResolveAll(doc, nil); !reflect.DeepEqual(got, want) {
		t.Fatal("/m/* is not in SortedKeys order")
	}
}

func TestPointerResolveStopsEarly(t *testing.T) {
	doc := testDecode(t, ptrTestDoc)
	for _, c := range []struct {
		ptr       string
		stopAfter int
		calls     int
		complete  bool
	}{
		{"/n/*", 1, 1, false},
		{"/n/*", 2, 2, false},
		{"/n/*", 3, 3, false}, // stopped at the last value: still "stopped"
		{"/n/*", 4, 3, true},
		{"/**", 1, 1, false},
		{"/n/0", 1, 1, false},
		{"/n/0", 2, 1, true},
		{"/nope", 1, 0, true},
		{"/nope/*", 1, 0, true},
	} {
		calls := 0
		complete := MustParsePointer(c.ptr).Resolve(doc, func(any) bool {
			calls++
			return calls < c.stopAfter
		})
		if calls != c.calls || complete != c.complete {
			t.Errorf("%q stop after %d: %d calls, complete %v; want %d, %v", c.ptr, c.stopAfter, calls, complete, c.calls, c.complete)
		}
	}
}

func TestPointerFirst(t *testing.T) {
	doc := testDecode(t, ptrTestDoc)
	for ptr, want := range map[string]any{
		"/tools/0/id": "a",
		"/n/*":        Number("10"),
		"/meta/*":     "empty",
		"/**/tags/1":  "y",
	} {
		got, ok := MustParsePointer(ptr).First(doc)
		if !ok || !ptrJSONEqual(got, want) {
			t.Errorf("First %q = %v, %v; want %v", ptr, got, ok, want)
		}
	}
	for _, ptr := range []string{"/nope", "/nope/*", "/n/3", "/**/nope"} {
		if got, ok := MustParsePointer(ptr).First(doc); ok {
			t.Errorf("First %q = %v, want none", ptr, got)
		}
	}
}

func TestPointerNilAndZero(t *testing.T) {
	doc := testDecode(t, `{"a": 1}`)
	for _, p := range []*Pointer{nil, {}} {
		if !p.IsRoot() || p.HasWildcard() || p.String() != "" || p.Segments() != nil {
			t.Errorf("%#v: not the root pointer", p)
		}
		if got, ok := p.First(doc); !ok || !ptrJSONEqual(got, doc) {
			t.Errorf("%#v.First = %v, %v", p, got, ok)
		}
		if got := p.ResolveAll(doc, nil); len(got) != 1 {
			t.Errorf("%#v.ResolveAll = %v", p, got)
		}
	}
}

// TestPointerResolveOddTrees feeds trees outside the decoded-document
// model: they are leaves or empty containers, never a panic.
func TestPointerResolveOddTrees(t *testing.T) {
	type thing struct{ A int }
	docs := []any{
		nil,
		map[string]any(nil),
		[]any(nil),
		map[string]int{"a": 1},
		[]string{"a"},
		thing{1},
		&thing{1},
		map[string]any{"a": map[string]any(nil), "b": []any{nil, []any(nil)}, "c": []int{1}},
		[]any{map[string]any{"": nil}},
	}
	ptrs := []string{"", "/", "/a", "/0", "/*", "/**", "/a/*", "/**/*", "/*/0", "/**/a", "//"}
	for _, doc := range docs {
		for _, ptr := range ptrs {
			p := MustParsePointer(ptr)
			n := 0
			p.Resolve(doc, func(any) bool { n++; return true })
			if all := p.ResolveAll(doc, nil); len(all) != n {
				t.Errorf("%#v %q: Resolve saw %d, ResolveAll %d", doc, ptr, n, len(all))
			}
			p.First(doc)
		}
	}
}

// TestPointerDeepTree walks a tree far deeper than Decode allows: ** keeps
// its own stack, so depth costs heap, not goroutine stack.
func TestPointerDeepTree(t *testing.T) {
	const depth = 200_000
	var doc any = "leaf"
	for range depth {
		doc = []any{doc}
	}
	if got := MustParsePointer("/**").ResolveAll(doc, nil); len(got) != depth+1 {
		t.Fatalf("/** visited %d nodes, want %d", len(got), depth+1)
	}
	if got, ok := MustParsePointer("/**/0/*").First(doc); !ok || reflect.TypeOf(got) != reflect.TypeOf([]any{}) {
		t.Fatalf("/**/0/* first = %v, %v", got, ok)
	}
}

// TestPointerNoAllocWithoutWildcards guards the hot path: the evaluator
// resolves plain pointers once per candidate document.
func TestPointerNoAllocWithoutWildcards(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under the race detector are its own")
	}
	doc := testDecode(t, ptrTestDoc)
	p := MustParsePointer("/tools/0/tags/1")
	miss := MustParsePointer("/tools/7/tags")
	count := func(any) bool { return true }
	dst := make([]any, 0, 1)
	allocs := testing.AllocsPerRun(100, func() {
		p.First(doc)
		miss.First(doc)
		p.Resolve(doc, count)
		miss.Resolve(doc, count)
		dst = p.ResolveAll(doc, dst[:0])
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run, want 0", allocs)
	}
}

func TestSortedKeys(t *testing.T) {
	m := map[string]any{}
	for _, k := range []string{"\uFFFF", "\uE000", "\U0001F600", "\U00010000", "\uD7FF", "\u00E9", "a", "", "ab", "\U0001F600a", "\uFB01", "\U0010FFFF"} {
		m[k] = nil
	}
	want := []string{"", "a", "ab", "\u00E9", "\uD7FF", "\U00010000", "\U0001F600", "\U0001F600a", "\U0010FFFF", "\uE000", "\uFB01", "\uFFFF"}
	if got := SortedKeys(m); !slices.Equal(got, want) {
		t.Fatalf("SortedKeys = %+q\nwant        %+q", got, want)
	}
	// Go's byte order disagrees exactly on the astral vs private-use pair.
	bs := []string{"\U0001F600", "\uE000"}
	if slices.Sort(bs); bs[0] != "\uE000" {
		t.Fatal("byte order assumption broken")
	}
	if got := SortedKeys(nil); len(got) != 0 {
		t.Fatalf("SortedKeys(nil) = %q", got)
	}
}

// TestSortedKeysMatchesUTF16 compares against a reference that encodes to
// UTF-16 and compares code units, over random names drawn from the ranges
// where byte and UTF-16 order disagree.
func TestSortedKeysMatchesUTF16(t *testing.T) {
	ref := func(a, b string) int {
		return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
	}
	pool := []rune{'a', 'z', 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xF8FF, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		m := map[string]any{}
		for range 1 + r.IntN(30) {
			rs := make([]rune, r.IntN(4))
			for i := range rs {
				rs[i] = pool[r.IntN(len(pool))]
			}
			m[string(rs)] = nil
		}
		got := SortedKeys(m)
		if !slices.IsSortedFunc(got, ref) {
			t.Fatalf("not in UTF-16 order: %+q", got)
		}
	}
}

// TestSortedKeysInvalidUTF8 only asks for a total, stable order: such names
// cannot come from Decode.
func TestSortedKeysInvalidUTF8(t *testing.T) {
	m := map[string]any{"\xff": nil, "\uFFFD": nil, "\xfe": nil, "a\xff": nil, "a": nil}
	want := []string{"a", "a\xff", "\uFFFD", "\xfe", "\xff"}
	for range 10 {
		if got := SortedKeys(m); !slices.Equal(got, want) {
			t.Fatalf("SortedKeys = %+q, want %+q", got, want)
		}
	}
}

func TestEscapeSegmentAndJoinPointer(t *testing.T) {
	for name, want := range map[string]string{
		"":      "",
		"plain": "plain",
		"a/b":   "a~1b",
		"m~n":   "m~0n",
		"~1":    "~01",
		"/~/":   "~1~0~1",
		"é/😀":   "é~1😀",
	} {
		if got := EscapeSegment([]byte("pre:"), name); !bytes.Equal(got, []byte("pre:"+want)) {
			t.Errorf("EscapeSegment(%q) = %q, want %q", name, got, want)
		}
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"tools", "0", "id"}, "/tools/0/id"},
		{[]string{"a/b", "m~n", ""}, "/a~1b/m~0n/"},
		{[]string{"", ""}, "//"},
		{[]string{""}, "/"}, // the whole document here, not the member ""
		{[]string{"*"}, "/*"},
	} {
		got := JoinPointer(c.names...)
		if got != c.want {
			t.Errorf("JoinPointer(%q) = %q, want %q", c.names, got, c.want)
			continue
		}
		segs := MustParsePointer(got).Segments()
		if len(c.names) == 1 && c.names[0] == "" {
			continue // documented caveat: "/" is the root
		}
		for i, s := range segs {
			if s.Name != c.names[i] {
				t.Errorf("JoinPointer(%q) reads back as %+v", c.names, segs)
			}
		}
	}
}

func TestSegmentKindString(t *testing.T) {
	for k, want := range map[SegmentKind]string{SegName: "name", SegWildcard: "*", SegDescend: "**", 9: "SegmentKind(9)"} {
		if k.String() != want {
			t.Errorf("%d: %q", k, k.String())
		}
	}
}

func BenchmarkPointerFirst(b *testing.B) {
	doc := testDecode(b, ptrTestDoc)
	p := MustParsePointer("/tools/0/tags/1")
	for b.Loop() {
		p.First(doc)
	}
}

func BenchmarkPointerResolveDescend(b *testing.B) {
	doc := testDecode(b, ptrTestDoc)
	p := MustParsePointer("/**/tags/*")
	var dst []any
	for b.Loop() {
		dst = p.ResolveAll(doc, dst[:0])
	}
}
