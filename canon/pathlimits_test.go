package canon

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// The path limits, one test each in the manner of limits_test.go: at the
// limit the document is accepted, one past it refused through Decode and
// Canonicalize alike, naming the limit and the pointer of the member or
// element that crosses it.

// members is an object of the given members, each holding 0.
func members(names ...string) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(n) + ":0")
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// chain nests one member named name per level, depth levels deep.
func chain(name string, depth int) []byte {
	q := strconv.Quote(name)
	return []byte(strings.Repeat("{"+q+":", depth) + "0" + strings.Repeat("}", depth))
}

func TestLimitNameBytes(t *testing.T) {
	for _, lim := range []*Limits{nil, {MaxNameBytes: 8}} {
		max := limitsOrDefault(lim).MaxNameBytes
		at, past := strings.Repeat("n", max), strings.Repeat("n", max+1)
		if err := decodeBoth(t, members("a", at), lim); err != nil {
			t.Fatalf("a name of exactly %d bytes: %v", max, err)
		}
		wantLimitError(t, decodeBoth(t, members("a", past), lim), "/"+past,
			"member name of "+strconv.Itoa(max+1)+" bytes is over the limit of "+strconv.Itoa(max), "Limits.MaxNameBytes")
	}
	// Bytes of the name, unescaped: "\u00e9" is two bytes, "\"" one.
	lim := &Limits{MaxNameBytes: 4}
	if err := decodeBoth(t, []byte(`{"\u00e9\"\\":1}`), lim); err != nil {
		t.Fatalf("a name of four bytes written in fourteen: %v", err)
	}
	err := decodeBoth(t, []byte("{\"a\":1,\n  \"\\u00e9\\u00e9\\u00e9\":2}"), lim)
	wantLimitError(t, err, "/ééé", "member name of 6 bytes")
	var se *SyntaxError
	if errors.As(err, &se) && (se.Line != 2 || se.Column != 3) {
		t.Errorf("line %d, column %d; want the name's quote, line 2 column 3", se.Line, se.Column)
	}
	// A hostile name does not flood the message: its segment is cut.
	huge := strings.Repeat("é", 32500)
	err = decodeBoth(t, members(huge), nil)
	wantLimitError(t, err, "/"+huge, "member name of 65000 bytes", "...(65000 bytes)")
	if len(err.Error()) > 400 {
		t.Errorf("error is %d bytes long: %.100q...", len(err.Error()), err)
	}
	if DefaultLimits().MaxNameBytes != 1024 {
		t.Fatalf("the README documents names of 1 KiB, the code has %d", DefaultLimits().MaxNameBytes)
	}
}

func TestLimitPathBytes(t *testing.T) {
	// Each level of "abcd" adds five bytes.
	lim := &Limits{MaxPathBytes: 15}
	if err := decodeBoth(t, chain("abcd", 3), lim); err != nil {
		t.Fatalf("a path of 15 bytes: %v", err)
	}
	wantLimitError(t, decodeBoth(t, chain("abcd", 4), lim), "/abcd/abcd/abcd/abcd",
		"path of 20 bytes", "over the limit of 15 (Limits.MaxPathBytes)")
	// An array level is one byte; the element past the limit is named.
	if err := decodeBoth(t, []byte(`{"abcd":[[[[[[[[[[1]]]]]]]]]]}`), lim); err != nil {
		t.Fatalf("five bytes and ten array levels: %v", err)
	}
	wantLimitError(t, decodeBoth(t, []byte(`{"abcd":[[[[[[[[[[[1]]]]]]]]]]]}`), lim),
		"/abcd"+strings.Repeat("/0", 11), "path of 16 bytes")
	// The default: four levels of 1,000-byte names fit (4,004 bytes),
	// five do not.
	name := strings.Repeat("x", 1000)
	if err := decodeBoth(t, chain(name, 4), nil); err != nil {
		t.Fatalf("4,004 bytes: %v", err)
	}
	wantLimitError(t, decodeBoth(t, chain(name, 5), nil), strings.Repeat("/"+name, 5), "path of 5005 bytes")
	if DefaultLimits().MaxPathBytes != 4096 {
		t.Fatalf("the README documents paths of 4 KiB, the code has %d", DefaultLimits().MaxPathBytes)
	}
}

func TestLimitPaths(t *testing.T) {
	lim := &Limits{MaxPaths: 5}
	if err := decodeBoth(t, members("a", "b", "c", "d", "e"), lim); err != nil {
		t.Fatalf("five paths: %v", err)
	}
	wantLimitError(t, decodeBoth(t, members("a", "b", "c", "d", "e", "f"), lim), "/f",
		"distinct path 6 is over the limit of 5 paths per document (Limits.MaxPaths)")
	// Elements share their path: a thousand of them are three paths.
	same := `{"x":[` + strings.TrimSuffix(strings.Repeat(`{"a":1},`, 1000), ",") + `]}`
	if err := decodeBoth(t, []byte(same), lim); err != nil {
		t.Fatalf("a thousand elements of one shape: %v", err)
	}
	// Elements of new shapes add paths: /x, /x/*, then /x/*/a ... /x/*/d.
	wantLimitError(t, decodeBoth(t, []byte(`{"x":[{"a":1},{"a":1,"b":2},{"c":3},{"a":1,"d":4}]}`), lim),
		"/x/3/d", "distinct path 6")
	// The default fits two objects of MaxMembers members, not quite.
	var names []string
	for i := range DefaultMaxMembers {
		names = append(names, "m"+strconv.Itoa(i))
	}
	half := string(members(names...))
	if err := decodeBoth(t, []byte(`{"x":`+half+`}`), nil); err != nil {
		t.Fatalf("one object of %d members: %v", DefaultMaxMembers, err)
	}
	wantLimitError(t, decodeBoth(t, []byte(`{"x":`+half+`,"y":`+half+`}`), nil),
		"/y/m9998", "distinct path 20001 is over the limit of 20000")
}

func TestLimitPathsBytes(t *testing.T) {
	// Each "abcd" member's path is five bytes.
	lim := &Limits{MaxPathsBytes: 20}
	if err := decodeBoth(t, members("aaaa", "bbbb", "cccc", "dddd"), lim); err != nil {
		t.Fatalf("paths of 20 bytes: %v", err)
	}
	wantLimitError(t, decodeBoth(t, members("aaaa", "bbbb", "cccc", "dddd", "eeee"), lim), "/eeee",
		"distinct paths of 25 bytes in all are over the limit of 20 per document (Limits.MaxPathsBytes)")
	// Repeated paths count once.
	if err := decodeBoth(t, []byte(`[{"aaaa":1},{"aaaa":2},{"aaaa":3},{"aaaa":4},{"aaaa":5}]`), lim); err != nil {
		t.Fatalf("one path repeated: %v", err)
	}
	if DefaultLimits().MaxPathsBytes != 1<<20 {
		t.Fatalf("the README documents 1 MiB of paths, the code has %d", DefaultLimits().MaxPathsBytes)
	}
}

// FuzzPathLimits holds the three walks that count paths to one another
// under tight path limits: the exact counts over canonical bytes and over
// the decoded tree agree, and Canonicalize (counters, then the bytes)
// accepts what Decode (the one-pass decoder, then the tree or the token
// decoder) accepts.
func FuzzPathLimits(f *testing.F) {
	fuzzSeeds(f)
	for _, s := range []string{`{"ab":{"c":[1]}}`, `[{"a":1},{"b":2},{"a":3}]`, `{"a\u00e9":[[1],[2,[3]]]}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5}`, `[[],{},[{}],{"":[]}]`, `{"\"":{"\\":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l := Limits{MaxNameBytes: 3, MaxPathBytes: 7, MaxPaths: 5, MaxPathsBytes: 12}
		l.EnsureDefaults()
		_, derr := Decode(b, &l)
		c, cerr := Canonicalize(nil, b, &l)
		switch {
		case derr != nil && cerr == nil:
			t.Fatalf("%q: Canonicalize accepts, Decode says %v", b, derr)
		case derr == nil && cerr != nil && !errors.Is(cerr, ErrNotCanonicalizable):
			t.Fatalf("%q: Decode accepts, Canonicalize says %v", b, cerr)
		}
		if cerr != nil {
			c, cerr = Canonicalize(nil, b, nil)
			if cerr != nil {
				return
			}
		}
		v, err := DecodeCanonical(c)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := pathsWithinCanonical(c, &l), pathsWithinTree(v, &l); a != b {
			t.Fatalf("%s: exact count over the bytes says %v, over the tree %v", c, a, b)
		}
	})
}
