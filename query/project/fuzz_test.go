package project

import (
	"errors"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// FuzzApplyRaw: on any bytes and any projection, ApplyRaw and
// ApplyMembers never panic, fail only with ErrNotObject or ErrMalformed,
// and agree with each other; on bytes that canonicalize, ApplyRaw over
// the canonical bytes is exactly Apply over the decoded document
// (payload, missing list and error). Stored documents are canonical, so
// the second property is what responses rely on; the first is what a
// damaged store gets.
func FuzzApplyRaw(f *testing.F) {
	for _, s := range []struct{ doc, inc1, inc2, exc string }{
		{shop, "/price", "/actions/*/id", "/actions/1"},
		{`{"a\"b":{"c\\d":1,"e":[{"\u0001":2},{"f":3}]},"é":{"𝄞":4},"":{"":5},"*":{"x":6}}`, "/**", "", "/**/secret"},
		{`{"a":{"b":1},"a":{"c":2}}`, "/a", "/*", "/a/b"},
		{`{"a":[1,{"b":[2,3]}],"c":null}`, "/a/1/b/0", "/missing", "/a/*/b"},
		{`[{"a":1}]`, "/", "", ""},
		{`{"a":"x\q"}`, "/a", "/**", ""},
	} {
		f.Add([]byte(s.doc), s.inc1, s.inc2, s.exc)
	}
	f.Fuzz(func(t *testing.T, doc []byte, inc1, inc2, exc string) {
		include, ok1 := fuzzPointers(inc1, inc2)
		exclude, ok2 := fuzzPointers(exc)
		if !ok1 || !ok2 {
			return
		}
		_, _, err := ApplyRaw(doc, include, exclude)
		if err != nil && !errors.Is(err, ErrNotObject) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("ApplyRaw(%q): undocumented error %v", doc, err)
		}
		if d := docAgreement(doc, include, exclude); d != "" {
			t.Fatalf("%q include %v exclude %v: %s", doc, include, exclude, d)
		}
		c, err := canon.Canonicalize(nil, doc, nil)
		if err != nil {
			return
		}
		tree, err := canon.DecodeCanonical(c)
		if err != nil {
			t.Fatalf("canonical %s does not decode: %v", c, err)
		}
		if d := rawAgreement(c, tree, include, exclude); d != "" {
			t.Fatalf("%s include %v exclude %v: %s", c, include, exclude, d)
		}
	})
}

// fuzzPointers parses the non-empty texts; "" stands for no pointer.
func fuzzPointers(texts ...string) ([]*canon.Pointer, bool) {
	var out []*canon.Pointer
	for _, s := range texts {
		if s == "" {
			continue
		}
		p, err := canon.ParsePointer(s)
		if err != nil {
			return nil, false
		}
		out = append(out, p)
	}
	return out, true
}
