package index

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/aqlstore/aqlstore/canon"
)

// nodeTag stands in for a leaf or an empty container of a document the
// oracle resolves: a pointer, so the node the resolver selects is known
// by identity, and a leaf to canon's walker, as the node it replaces is
// (an empty container has no child for any segment to select).
type nodeTag struct{ path Path }

// oracle is a document prepared for canon's resolver, with the normalized
// path of every node: what the path dictionary holds for it.
type oracle struct {
	doc   any
	paths map[unsafe.Pointer]Path // non-empty containers, by identity
	count map[Path]int            // nodes per path
}

func newOracle(doc any) *oracle {
	o := &oracle{paths: map[unsafe.Pointer]Path{}, count: map[Path]int{}}
	o.doc = o.tag(doc, "")
	return o
}

func (o *oracle) tag(v any, p Path) any {
	o.count[p]++
	switch c := v.(type) {
	case map[string]any:
		if len(c) > 0 {
			out := make(map[string]any, len(c))
			for k, e := range c {
				out[k] = o.tag(e, p.appendMember(k))
			}
			o.paths[reflect.ValueOf(out).UnsafePointer()] = p
			return out
		}
	case []any:
		if len(c) > 0 {
			out := make([]any, len(c))
			for i, e := range c {
				out[i] = o.tag(e, p.appendArray())
			}
			o.paths[unsafe.Pointer(&out[0])] = p
			return out
		}
	}
	return &nodeTag{p}
}

// selected returns, per path, how many of its nodes canon's resolver
// selects with ptr.
func (o *oracle) selected(t testing.TB, ptr *canon.Pointer) map[Path]int {
	out := map[Path]int{}
	ptr.Resolve(o.doc, func(v any) bool {
		switch c := v.(type) {
		case *nodeTag:
			out[c.path]++
		case map[string]any:
			out[o.paths[reflect.ValueOf(c).UnsafePointer()]]++
		case []any:
			out[o.paths[unsafe.Pointer(&c[0])]]++
		default:
			t.Fatalf("the resolver selected %T, not a node of the document", v)
		}
		return true
	})
	return out
}

// nested returns a document of depth objects, each holding the next under
// the name "a" and an array under "b".
func nested(depth int) string {
	return strings.Repeat(`{"b":[1],"a":`, depth-1) + `{"b":[1]}` + strings.Repeat("}", depth-1)
}

// TestPathsManyDescendDeepDocument expands pointers with many `**` over
// the dictionary of a document nested as deep as documents go. Matching
// by recursion took exponential time in the number of `**` (seconds with
// six, never finished with eight); a state set takes each path once. The
// work runs under a deadline so that a regression fails instead of
// hanging, and the answer is checked against canon's resolver.
func TestPathsManyDescendDeepDocument(t *testing.T) {
	s, ix := openIndexed(t)
	body := nested(canon.DefaultMaxDepth - 1)
	put(t, s, context.Background(), body)
	doc, err := canon.Decode([]byte(body), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := newOracle(doc)
	for _, ptr := range []string{
		"/**/**/**/**/**/**/**/**/zz",
		"/**/**/**/**/**/**/**/**/a/b/*",
		"/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b/0",
		strings.Repeat("/**", 62) + "/b",
	} {
		p := canon.MustParsePointer(ptr)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		type answer struct {
			ids   []uint32
			exact bool
			err   error
		}
		done := make(chan answer, 1)
		go func() {
			ids, exact, err := ix.PathsContext(ctx, p)
			done <- answer{ids, exact, err}
		}()
		var got answer
		select {
		case got = <-done:
		case <-ctx.Done():
			t.Fatalf("%s: no answer within a minute", ptr)
		}
		cancel()
		if got.err != nil {
			t.Fatalf("%s: %v", ptr, got.err)
		}
		want := o.selected(t, p)
		var gotPaths []Path
		for _, id := range got.ids {
			gotPaths = append(gotPaths, ix.paths[id])
		}
		for path := range want {
			if !slices.Contains(gotPaths, path) {
				t.Errorf("%s: the resolver reaches %s, Paths misses it", ptr, path)
			}
		}
		wantExact := !concreteIndexIn(p)
		for _, path := range gotPaths {
			if _, ok := want[path]; !ok && wantExact {
				t.Errorf("%s: Paths gives %s, which the resolver does not reach", ptr, path)
			}
		}
		if got.exact != wantExact {
			t.Errorf("%s: exact = %v, want %v", ptr, got.exact, wantExact)
		}
	}
}

func concreteIndexIn(p *canon.Pointer) bool {
	return slices.ContainsFunc(p.Segments(), func(s canon.Segment) bool { return s.Kind == canon.SegName && s.Index >= 0 })
}

// TestPathsContextStops: a lookup under a context that has ended returns
// its error and leaves nothing in the memo.
func TestPathsContextStops(t *testing.T) {
	s, ix := openIndexed(t)
	put(t, s, context.Background(), `{"a":{"b":1}}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := canon.MustParsePointer("/**/b")
	if ids, _, err := ix.PathsContext(ctx, p); err != context.Canceled || ids != nil {
		t.Fatalf("PathsContext under a cancelled context = %v, %v; want no ids, context.Canceled", ids, err)
	}
	if ids, exact := ix.Paths(p); len(ids) != 1 || !exact {
		t.Fatalf("Paths after the cancelled lookup = %v %v, want the one path, exact", ids, exact)
	}
}

// BenchmarkPathsManyDescend expands a pointer of eight `**` over the
// dictionary of a document nested 63 deep, memo emptied each time: the
// case the recursive matcher never finished.
func BenchmarkPathsManyDescend(b *testing.B) {
	s, ix := openIndexed(b)
	put(b, s, context.Background(), nested(canon.DefaultMaxDepth-1))
	p := canon.MustParsePointer("/**/**/**/**/**/**/**/**/zz")
	for b.Loop() {
		ix.memoM.Lock()
		ix.memo = nil
		ix.memoM.Unlock()
		if _, _, err := ix.PathsContext(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ix.dict)), "dictionary-paths")
}
