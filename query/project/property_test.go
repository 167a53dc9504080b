package project

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"pgregory.net/rapid"
)

// The property tests draw small documents whose scalar leaves are all
// distinct (strings "s<N>" and numbers <N>), so a leaf in a payload tells
// the exact document path it came from even after arrays are compacted.
// Member names and pointer segments come from one small alphabet, with
// characters that need escaping and digits that also index arrays, so
// pointers hit often.

var memberNames = []string{"a", "b", "c", "a/b", "m~n", "0", "1"}

var segmentTexts = []string{"a", "b", "c", "a~1b", "m~0n", "0", "1", "2", "*", "*", "**", "**"}

// genDoc draws a document: an object at the top, up to five levels deep.
func genDoc(t *rapid.T) map[string]any {
	n := 0
	return genObject(t, 4, &n)
}

// genValue leans towards containers, so that documents are deep enough
// for `**` and wildcards to have work. (rapid favours small numbers, so
// containers get the small kinds.)
func genValue(t *rapid.T, depth int, n *int) any {
	kind := rapid.IntRange(0, 6).Draw(t, "kind")
	if depth == 0 {
		kind = 5 + kind%2
	}
	switch kind {
	case 0, 1:
		return genObject(t, depth-1, n)
	case 2, 3:
		return genArray(t, depth-1, n)
	case 4:
		return rapid.SampledFrom([]any{map[string]any{}, []any{}}).Draw(t, "empty")
	}
	*n++
	if kind == 5 {
		return "s" + strconv.Itoa(*n)
	}
	return canon.Number(strconv.Itoa(*n))
}

func genArray(t *rapid.T, depth int, n *int) []any {
	arr := make([]any, rapid.IntRange(1, 3).Draw(t, "len"))
	for i := range arr {
		arr[i] = genValue(t, depth, n)
	}
	return arr
}

func genObject(t *rapid.T, depth int, n *int) map[string]any {
	obj := map[string]any{}
	for _, name := range rapid.SliceOfNDistinct(rapid.SampledFrom(memberNames), 1, 3, rapid.ID[string]).Draw(t, "names") {
		obj[name] = genValue(t, depth, n)
	}
	return obj
}

// genPointer draws a pointer: half the time from the alphabet, half the
// time from the path of a node of doc with some segments turned into
// wildcards, so that most pointers select something.
func genPointer(t *rapid.T, doc any, label string) *canon.Pointer {
	var segs []string
	if rapid.Bool().Draw(t, label+"-derived") {
		segs = derivedSegments(t, doc, label)
	} else {
		segs = rapid.SliceOfN(rapid.SampledFrom(segmentTexts), 0, 4).Draw(t, label)
	}
	text := ""
	if len(segs) > 0 {
		text = "/" + strings.Join(segs, "/")
	} else if rapid.Bool().Draw(t, label+"-slash") {
		text = "/"
	}
	return canon.MustParsePointer(text)
}

func derivedSegments(t *rapid.T, doc any, label string) []string {
	all := nodes(doc, nil, nil)
	path := all[rapid.IntRange(0, len(all)-1).Draw(t, label+"-node")].path
	var segs []string
	for _, s := range path {
		tok := string(canon.EscapeSegment(nil, s.name))
		if s.index >= 0 {
			tok = strconv.Itoa(s.index)
		}
		switch rapid.IntRange(0, 5).Draw(t, label+"-wild") {
		case 4:
			tok = "*"
		case 5:
			tok = "**"
		}
		segs = append(segs, tok)
	}
	return segs
}

func genPointers(t *rapid.T, doc any, label string, max int) []*canon.Pointer {
	n := rapid.IntRange(0, max).Draw(t, label+"-count")
	out := make([]*canon.Pointer, n)
	for i := range out {
		out[i] = genPointer(t, doc, label)
	}
	return out
}

// node is a document node with its concrete path.
type node struct {
	path []step
	v    any
}

// nodes lists every node of v in pre-order.
func nodes(v any, path []step, dst []node) []node {
	dst = append(dst, node{slices.Clone(path), v})
	switch c := v.(type) {
	case map[string]any:
		for k, x := range c {
			dst = nodes(x, append(path, step{name: k, index: -1}), dst)
		}
	case []any:
		for i, x := range c {
			dst = nodes(x, append(path, step{index: i}), dst)
		}
	}
	return dst
}

// globMatch is the reference meaning of a pointer: does segs select the
// node at path? It recurses over the segments, without automata.
func globMatch(segs []canon.Segment, path []step) bool {
	if len(segs) == 0 {
		return len(path) == 0
	}
	switch segs[0].Kind {
	case canon.SegDescend:
		return globMatch(segs[1:], path) || len(path) > 0 && globMatch(segs, path[1:])
	case canon.SegWildcard:
		return len(path) > 0 && globMatch(segs[1:], path[1:])
	}
	if len(path) == 0 {
		return false
	}
	token := path[0].name
	if path[0].index >= 0 {
		token = strconv.Itoa(path[0].index)
	}
	return segs[0].Name == token && globMatch(segs[1:], path[1:])
}

// matchedPaths returns the paths of the nodes any of ps selects.
func matchedPaths(all []node, ps []*canon.Pointer) [][]step {
	var out [][]step
	for _, n := range all {
		for _, p := range ps {
			if globMatch(p.Segments(), n.path) {
				out = append(out, n.path)
				break
			}
		}
	}
	return out
}

func isPrefix(p, of []step) bool {
	return len(p) <= len(of) && slices.Equal(p, of[:len(p)])
}

func anyPrefix(ps [][]step, of []step) bool {
	return slices.ContainsFunc(ps, func(p []step) bool { return isPrefix(p, of) })
}

func anyExtends(ps [][]step, of []step) bool {
	return slices.ContainsFunc(ps, func(p []step) bool { return isPrefix(of, p) && len(p) > len(of) })
}

// reference builds the expected payload from path sets alone.
func reference(v any, path []step, inc, exc [][]step) (any, bool) {
	switch {
	case anyPrefix(exc, path):
		return nil, false
	case anyPrefix(inc, path):
		return referenceChildren(v, path, inc, exc, true)
	case anyExtends(inc, path):
		return referenceChildren(v, path, inc, exc, false)
	}
	return nil, false
}

func referenceChildren(v any, path []step, inc, exc [][]step, all bool) (any, bool) {
	switch c := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range c {
			if y, ok := reference(x, append(slices.Clone(path), step{name: k, index: -1}), inc, exc); ok {
				out[k] = y
			}
		}
		return out, all || len(out) > 0
	case []any:
		out := []any{}
		for i, x := range c {
			if y, ok := reference(x, append(slices.Clone(path), step{index: i}), inc, exc); ok {
				out = append(out, y)
			}
		}
		return out, all || len(out) > 0
	}
	return v, all
}

// leaves maps each scalar leaf of v to its path.
func leaves(v any) map[any][]step {
	out := map[any][]step{}
	for _, n := range nodes(v, nil, nil) {
		switch n.v.(type) {
		case map[string]any, []any:
		default:
			out[n.v] = n.path
		}
	}
	return out
}

// samePathShape reports whether a payload path can come from a document
// path: the same member names, the same array steps, and no payload index
// beyond the document's (arrays are only ever compacted).
func samePathShape(payload, doc []step) bool {
	if len(payload) != len(doc) {
		return false
	}
	for i := range payload {
		p, d := payload[i], doc[i]
		if (p.index >= 0) != (d.index >= 0) || p.name != d.name || p.index > d.index {
			return false
		}
	}
	return true
}

func TestApplyProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := genDoc(t)
		include := genPointers(t, doc, "include", 3)
		if len(include) == 0 {
			include = append(include, genPointer(t, doc, "include"))
		}
		exclude := genPointers(t, doc, "exclude", 2)
		payload, missing, err := Apply(doc, include, exclude)
		if err != nil {
			t.Fatal(err)
		}
		all := nodes(doc, nil, nil)
		inc, exc := matchedPaths(all, include), matchedPaths(all, exclude)
		checkLeaves(t, doc, payload, inc, exc)
		checkAgainstReference(t, doc, payload, inc, exc)
		checkMissing(t, doc, include, missing)
		checkDeterministic(t, doc, include, exclude, payload, missing)
	})
}

// checkLeaves: every payload leaf is the document's leaf at the same path
// (up to compaction), lies under an include match and under no exclude
// match; every document leaf under an include match and no exclude match
// is in the payload.
func checkLeaves(t *rapid.T, doc, payload any, inc, exc [][]step) {
	docLeaves, payLeaves := leaves(doc), leaves(payload)
	for v, pp := range payLeaves {
		dp, ok := docLeaves[v]
		switch {
		case !ok:
			t.Fatalf("payload leaf %v at %v is not in the document", v, pp)
		case !samePathShape(pp, dp):
			t.Fatalf("payload leaf %v at %v comes from %v", v, pp, dp)
		case !anyPrefix(inc, dp):
			t.Fatalf("payload leaf %v at %v is outside include %v", v, dp, inc)
		case anyPrefix(exc, dp):
			t.Fatalf("payload leaf %v at %v is excluded", v, dp)
		}
	}
	for v, dp := range docLeaves {
		_, kept := payLeaves[v]
		if want := anyPrefix(inc, dp) && !anyPrefix(exc, dp); kept != want {
			t.Fatalf("document leaf %v at %v: in payload %v, want %v", v, dp, kept, want)
		}
	}
}

func checkAgainstReference(t *rapid.T, doc, payload any, inc, exc [][]step) {
	want, ok := reference(doc, nil, inc, exc)
	if !ok {
		want = map[string]any{}
	}
	if !reflect.DeepEqual(payload, want) {
		t.Fatalf("payload\n%s\nreference\n%s", canon.AppendValue(nil, payload), canon.AppendValue(nil, want))
	}
}

// checkMissing: an include is missing exactly when canon's own resolver
// finds nothing for it.
func checkMissing(t *rapid.T, doc any, include []*canon.Pointer, missing []string) {
	var want []string
	for _, p := range include {
		if len(p.ResolveAll(doc, nil)) == 0 {
			want = append(want, p.String())
		}
	}
	if !slices.Equal(missing, want) {
		t.Fatalf("missing %q, want %q", missing, want)
	}
}

func checkDeterministic(t *rapid.T, doc any, include, exclude []*canon.Pointer, payload map[string]any, missing []string) {
	again, missing2, _ := Apply(doc, include, exclude)
	if !reflect.DeepEqual(again, payload) || !slices.Equal(missing, missing2) {
		t.Fatalf("a second Apply differs")
	}
}

func TestApplyRootIsIdentity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := genDoc(t)
		root := rapid.SampledFrom([]string{"", "/", "/**"}).Draw(t, "root")
		payload, missing, err := Apply(doc, []*canon.Pointer{canon.MustParsePointer(root)}, nil)
		if err != nil || missing != nil || !reflect.DeepEqual(payload, doc) {
			t.Fatalf("Apply(%q) = %v, %v, %v; want the document", root, payload, missing, err)
		}
	})
}

// TestWalkMatchesResolve: the walker selects the same nodes as
// canon.Pointer.Resolve, each once.
func TestWalkMatchesResolve(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		doc := genDoc(t)
		p := genPointer(t, doc, "pointer")
		var got []string
		walkMatches(doc, p, func(path []step) {
			got = append(got, string(canon.AppendValue(nil, at(doc, path))))
		})
		var want []string
		for _, v := range p.ResolveAll(doc, nil) {
			want = append(want, string(canon.AppendValue(nil, v)))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: walker %q, Resolve %q", p, got, want)
		}
	})
}

// at returns the node at path.
func at(v any, path []step) any {
	for _, s := range path {
		if s.index >= 0 {
			v = v.([]any)[s.index]
		} else {
			v = v.(map[string]any)[s.name]
		}
	}
	return v
}
