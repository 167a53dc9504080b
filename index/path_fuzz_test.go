package index

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/canon"
)

// FuzzPathSegments reads any bytes as a path of the path dictionary (the
// keys Load reads back from disk): decoding never panics, and gives the
// segments before any damage, which encode back to a path that decodes
// to the same segments (not always a prefix of the input: a damaged length
// may be a uvarint written longer than needed). String names a path of
// UTF-8 names as a pointer that parses, one segment per decoded segment.
func FuzzPathSegments(f *testing.F) {
	f.Add("")
	f.Add(string(Path("").appendMember("a").appendArray().appendMember("b~/c")))
	f.Add(string(Path("").appendMember(strings.Repeat("x", 200)).appendArray().appendArray()))
	f.Add("k\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01")
	f.Add("ka")
	f.Add("x")
	f.Fuzz(func(t *testing.T, s string) {
		p := Path(s)
		segs := p.segments()
		var again Path
		for _, seg := range segs {
			if seg.array {
				again = again.appendArray()
			} else {
				again = again.appendMember(seg.name)
			}
		}
		if !reflect.DeepEqual(again.segments(), segs) {
			t.Fatalf("%q decodes to %+v, which encodes as %q", s, segs, string(again))
		}
		for _, seg := range segs {
			if !utf8.ValidString(seg.name) {
				return // a member name of canonical JSON is UTF-8: only a damaged dictionary holds this
			}
		}
		ptr, err := canon.ParsePointerLimits(p.String(), canon.PointerLimits{MaxBytes: 1 << 30, MaxSegments: 1 << 30})
		// "/" is the whole document (README), so a lone member named ""
		// shows as the root: the one path whose name has fewer segments.
		if err != nil || len(segs) > 0 && len(ptr.Segments()) != len(segs) && p.String() != "/" {
			t.Fatalf("%q names %q, %v", s, p.String(), err)
		}
	})
}

// fuzzNames are the member names and pointer tokens the generated
// documents and pointers draw from: few, so that they meet, with the
// characters a pointer escapes and names that look like indices or
// wildcards.
var fuzzNames = []string{"a", "b", "0", "1", "", "~", "/", "a/b", "~1", "*", "**", "01", "-"}

// fuzzBytes hands out a fuzz input's bytes, then zeros.
type fuzzBytes []byte

func (b *fuzzBytes) next() int {
	if len(*b) == 0 {
		return 0
	}
	v := (*b)[0]
	*b = (*b)[1:]
	return int(v)
}

// fuzzDoc builds a document from b: objects and arrays of up to three
// children over fuzzNames, scalars at the leaves.
func fuzzDoc(b *fuzzBytes, depth int) any {
	switch op := b.next(); {
	case depth >= 7 || op%4 == 0:
		return canon.Number("1")
	case op%4 == 1:
		m := map[string]any{}
		for range b.next() % 4 {
			m[fuzzNames[b.next()%len(fuzzNames)]] = fuzzDoc(b, depth+1)
		}
		return m
	case op%4 == 2:
		a := []any{}
		for range b.next() % 4 {
			a = append(a, fuzzDoc(b, depth+1))
		}
		return a
	}
	return "s"
}

// fuzzPointer builds a pointer of up to eight tokens from b, escaped as
// RFC 6901 says, with `*` and `**` often.
func fuzzPointer(b *fuzzBytes) string {
	var sb strings.Builder
	for range b.next() % 9 {
		sb.WriteByte('/')
		switch tok := b.next() % (len(fuzzNames) + 4); {
		case tok >= len(fuzzNames)+2:
			sb.WriteString("**")
		case tok >= len(fuzzNames):
			sb.WriteString("*")
		default:
			sb.Write(canon.EscapeSegment(nil, fuzzNames[tok]))
		}
	}
	return sb.String()
}

// FuzzPathsMatchResolve holds the path matcher to canon's resolver, the
// exact semantics: for a random document and pointer, every node the
// resolver selects has its path among those the matcher gives; every
// path the matcher gives exactly has all its nodes selected; and a
// pointer without a concrete array index gets exact matches only. The
// paths are the ones extraction writes to the dictionary. Small cases are
// also held to the recursive matcher the state sets replaced.
func FuzzPathsMatchResolve(f *testing.F) {
	f.Add([]byte{1, 2, 1, 0, 2, 3, 0, 0, 0}, []byte{2, 15, 0})
	f.Add([]byte{1, 3, 0, 2, 2, 0, 1, 1, 1, 1, 0, 2, 2, 0, 0}, []byte{3, 16, 0, 2})
	f.Add([]byte{2, 3, 1, 1, 0, 0, 2, 1, 1, 1, 1, 0, 0, 0}, []byte{4, 13, 16, 2, 0})
	f.Add([]byte{1, 2, 5, 1, 1, 6, 0, 8, 1, 1, 9, 0}, []byte{3, 5, 6, 16})
	f.Add([]byte{1, 3, 9, 0, 10, 0, 4, 3}, []byte{1, 9})
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, docSpec, ptrSpec []byte) {
		db, pb := fuzzBytes(docSpec), fuzzBytes(ptrSpec)
		doc := fuzzDoc(&db, 0)
		text := fuzzPointer(&pb)
		ptr, err := canon.ParsePointer(text)
		if err != nil {
			t.Fatalf("generated pointer %q: %v", text, err)
		}
		c, err := canon.Canonicalize(nil, canon.AppendValue(nil, doc), nil)
		if err != nil {
			t.Fatal(err)
		}
		dict := map[Path]bool{}
		x := extractor{emit: func(p []byte, fam byte, _ []byte) {
			if fam == famExists {
				dict[Path(p)] = true
			}
		}}
		x.walk(c)
		o := newOracle(doc)
		if len(dict) != len(o.count) {
			t.Fatalf("extraction gives %d paths, the document has %d", len(dict), len(o.count))
		}
		selected := o.selected(t, ptr)
		pat := ptr.Segments()
		mt := newMatcher(pat)
		descend := 0
		for _, s := range pat {
			if s.Kind == canon.SegDescend {
				descend++
			}
		}
		for p := range dict {
			segs := p.segments()
			got := mt.match(segs)
			switch {
			case selected[p] > 0 && got == noMatch:
				t.Errorf("%s in %s: the resolver selects %s, the matcher does not", text, c, p)
			case got == exactMatch && selected[p] != o.count[p]:
				t.Errorf("%s in %s: exact match of %s, the resolver selects %d of its %d nodes", text, c, p, selected[p], o.count[p])
			case got == lossyMatch && !concreteIndexIn(ptr):
				t.Errorf("%s in %s: lossy match of %s without a concrete index", text, c, p)
			}
			if descend <= 4 && len(segs) <= 8 {
				if want := matchRecursive(pat, segs); got != want {
					t.Errorf("%s against %s: %v, recursion says %v", text, p, got, want)
				}
			}
		}
	})
}

// matchRecursive is the matcher the state sets replaced: exponential in
// the number of `**`, kept as a second oracle for small cases.
func matchRecursive(pat []canon.Segment, path []pathSeg) matchMode {
	if len(pat) == 0 {
		if len(path) == 0 {
			return exactMatch
		}
		return noMatch
	}
	switch pat[0].Kind {
	case canon.SegDescend:
		best := matchRecursive(pat[1:], path)
		for i := range path {
			if best == exactMatch {
				break
			}
			best = max(best, matchRecursive(pat[1:], path[i+1:]))
		}
		return best
	case canon.SegWildcard:
		if len(path) == 0 {
			return noMatch
		}
		return matchRecursive(pat[1:], path[1:])
	}
	if len(path) == 0 {
		return noMatch
	}
	if path[0].array {
		if pat[0].Index < 0 {
			return noMatch
		}
		return min(lossyMatch, matchRecursive(pat[1:], path[1:]))
	}
	if path[0].name != pat[0].Name {
		return noMatch
	}
	return matchRecursive(pat[1:], path[1:])
}
