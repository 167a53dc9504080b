package project

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// canonicalDoc returns the canonical bytes of the JSON src and the tree
// DecodeCanonical reads from them: the pair ApplyRaw and Apply must agree
// on.
func canonicalDoc(t interface {
	Helper()
	Fatalf(string, ...any)
}, src []byte) ([]byte, any) {
	t.Helper()
	c, err := canon.Canonicalize(nil, src, nil)
	if err != nil {
		t.Fatalf("canonicalize %s: %v", src, err)
	}
	tree, err := canon.DecodeCanonical(c)
	if err != nil {
		t.Fatalf("decode %s: %v", c, err)
	}
	return c, tree
}

// rawAgreement is "" when ApplyRaw over c gives exactly Apply over tree.
func rawAgreement(c []byte, tree any, include, exclude []*canon.Pointer) string {
	want, wantMissing, wantErr := Apply(tree, include, exclude)
	got, gotMissing, gotErr := ApplyRaw(c, include, exclude)
	switch {
	case !reflect.DeepEqual(got, want):
		return "payload (-Apply +ApplyRaw):\n" + cmp.Diff(want, got)
	case !slices.Equal(gotMissing, wantMissing):
		return "missing " + cmp.Diff(wantMissing, gotMissing)
	case (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error():
		return "error " + cmp.Diff(errText(wantErr), errText(gotErr))
	}
	if d := docAgreement(c, include, exclude); d != "" {
		return d
	}
	return appendAgreement(c, include, exclude)
}

// appendAgreement is "" when AppendMembers writes, after a prefix it must
// keep, the RFC 8785 bytes of ApplyRaw's payload over the canonical c,
// with the same missing paths and error.
func appendAgreement(c []byte, include, exclude []*canon.Pointer) string {
	payload, wantMissing, wantErr := ApplyRaw(c, include, exclude)
	prefix := []byte("[1,")
	got, gotMissing, gotErr := AppendMembers(prefix, canon.NewMembers(c), include, exclude)
	want := prefix
	if wantErr == nil {
		want = canon.AppendValue(slices.Clone(prefix), payload)
	}
	switch {
	case string(got) != string(want):
		return "AppendMembers wrote " + string(got) + ", want " + string(want)
	case !slices.Equal(gotMissing, wantMissing):
		return "missing (AppendMembers) " + cmp.Diff(wantMissing, gotMissing)
	case errText(gotErr) != errText(wantErr):
		return "error (AppendMembers) " + cmp.Diff(errText(wantErr), errText(gotErr))
	}
	return ""
}

// docAgreement is "" when ApplyMembers gives exactly ApplyRaw over c, both
// on a fresh Members and on one whose table a resolve has half built (as
// judge leaves it after evaluating the constraints).
func docAgreement(c []byte, include, exclude []*canon.Pointer) string {
	want, wantMissing, wantErr := ApplyRaw(c, include, exclude)
	for _, warm := range append([]*canon.Pointer{nil}, include...) {
		d := canon.NewMembers(c)
		if warm != nil {
			warm.ResolveMembers(d, func([]byte) bool { return false })
		}
		got, gotMissing, gotErr := ApplyMembers(d, include, exclude)
		switch {
		case !reflect.DeepEqual(got, want):
			return "payload (-ApplyRaw +ApplyMembers):\n" + cmp.Diff(want, got)
		case !slices.Equal(gotMissing, wantMissing):
			return "missing (ApplyMembers) " + cmp.Diff(wantMissing, gotMissing)
		case errText(gotErr) != errText(wantErr) || !errors.Is(gotErr, ErrMalformed) && errors.Is(wantErr, ErrMalformed):
			return "error (ApplyMembers) " + cmp.Diff(errText(wantErr), errText(gotErr))
		}
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestApplyRawMatchesApply: on random documents and projections, ApplyRaw
// over the canonical bytes is Apply over the decoded document.
func TestApplyRawMatchesApply(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, tree := canonicalDoc(t, canon.AppendValue(nil, genDoc(t)))
		include := genPointers(t, tree, "include", 3)
		exclude := genPointers(t, tree, "exclude", 2)
		if d := rawAgreement(c, tree, include, exclude); d != "" {
			t.Fatalf("include %v exclude %v over %s: %s", include, exclude, c, d)
		}
	})
}

func TestApplyRaw(t *testing.T) {
	escaped := `{"a\"b":{"c\\d":1,"e":[{"\u0001":2},{"f":3}]},"é":{"𝄞":4},"":{"":5},"*":{"x":6}}`
	projections := []struct{ include, exclude []string }{
		{[]string{"/"}, nil},
		{[]string{""}, []string{"/**/secret", "/price/internal"}},
		{[]string{"/**"}, nil},
		{[]string{"/price/amount", "/absent", "/tags/-", "/tags/01"}, nil},
		{[]string{"/actions/*/id", "/matrix/*/0"}, []string{"/actions/2"}},
		{[]string{"/**/id"}, []string{"/actions/0/args"}},
		{[]string{"/price"}, []string{"/price"}},
		{[]string{"/inventory"}, []string{"/inventory/*"}},
		{[]string{"/a~1b", "/m~0n", "/c/x~1y", "/c/~0", "/obj/0", "/nothing"}, nil},
		{[]string{`/a"b/c\d`, "/a\"b/e/*/\u0001", "/é/𝄞", "/*/", "/*/x"}, nil},
		{[]string{`/a"b`}, []string{"/a\"b/e/0"}},
		{[]string{"/**/**/f"}, nil},
		{nil, nil},
	}
	for _, src := range []string{shop, escaped} {
		c, tree := canonicalDoc(t, []byte(src))
		for _, p := range projections {
			if d := rawAgreement(c, tree, pointers(t, p.include), pointers(t, p.exclude)); d != "" {
				t.Errorf("include %q exclude %q over %s: %s", p.include, p.exclude, c, d)
			}
		}
	}
}

func TestApplyRawNotObject(t *testing.T) {
	for _, s := range []string{`[{"a":1}]`, `"x"`, `null`, `3`, `true`, `false`, `-1.5e3`} {
		c, tree := canonicalDoc(t, []byte(s))
		_, _, want := Apply(tree, pointers(t, []string{"/"}), nil)
		payload, missing, err := ApplyRaw(c, pointers(t, []string{"/"}), nil)
		if !errors.Is(err, ErrNotObject) || payload != nil || missing != nil || err.Error() != want.Error() {
			t.Errorf("ApplyRaw(%s) = %v, %v, %v; want %v", s, payload, missing, err, want)
		}
	}
}

// TestApplyRawMalformed: bytes that are not canonical JSON give an error
// or a partial payload, never a panic.
func TestApplyRawMalformed(t *testing.T) {
	for _, s := range []string{``, `{`, `{"a":`, `{"a":[1,`, `{"a":{"b":tru}}`, `{"a":"x\q"}`, `{"a":1,}`} {
		_, _, err := ApplyRaw([]byte(s), pointers(t, []string{"/a", "/**"}), pointers(t, []string{"/a/b"}))
		if s == `` && !errors.Is(err, ErrMalformed) {
			t.Errorf("ApplyRaw(%q) = %v, want ErrMalformed", s, err)
		}
	}
}

// TestApplyMembersOdd: on bytes that are not canonical (malformed members,
// duplicate names, names escaped differently, other roots) ApplyMembers
// gives exactly what ApplyRaw gives.
func TestApplyMembersOdd(t *testing.T) {
	docs := []string{``, `{`, `{}`, `{"a":`, `{"a":[1,`, `{"a":{"b":tru}}`, `{"a":"x\q"}`, `{"a":1,}`, `{"a":,"b":1}`,
		`{"a":1,"b":}`, `{"a":1 x}`, `{"a":1,"a":2}`, `{"a":{"b":1},"a":{"c":2}}`, `{"\u0061":1,"a":2}`,
		`{"a\\b":1,"a\u005cb":2}`, `{"":{"":1},"*":2}`, `[{"a":1}]`, `"x"`, `null`, `3`}
	sets := [][2][]string{
		{{"/a"}, nil}, {{"/a", "/**"}, {"/a/b"}}, {{"/*"}, nil}, {{"/b", "/a/c"}, {"/a"}}, {{"/"}, {"/a/b"}},
		{{"/*/b"}, nil}, {{`/a\b`, "//"}, nil}, {{"/missing"}, {"/*"}},
	}
	for _, s := range docs {
		for _, set := range sets {
			if d := docAgreement([]byte(s), pointers(t, set[0]), pointers(t, set[1])); d != "" {
				t.Errorf("%s include %v exclude %v: %s", s, set[0], set[1], d)
			}
		}
	}
}

// TestApplyRawCopies: the payload shares no bytes with the document, which
// a store may reuse as soon as the read ends.
func TestApplyRawCopies(t *testing.T) {
	c, _ := canonicalDoc(t, []byte(shop))
	payload, _, err := ApplyRaw(c, pointers(t, []string{"/price", "/actions/*/id", "/c"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	before := string(canon.AppendValue(nil, payload))
	for i := range c {
		c[i] = 'z'
	}
	if after := string(canon.AppendValue(nil, payload)); after != before {
		t.Fatalf("changing the bytes changed the payload:\n%s\n%s", before, after)
	}
}

func BenchmarkApply(b *testing.B) {
	docs := make([][]byte, 1024)
	var buf []byte
	for i := range docs {
		var err error
		if buf, err = corpus.Document("manifest", 1, i, buf[:0]); err != nil {
			b.Fatal(err)
		}
		if docs[i], err = canon.Canonicalize(nil, buf, nil); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name             string
		include, exclude []string
	}{
		{"tool-id", []string{"/tool/id"}, nil},
		{"few-fields", []string{"/tool/id", "/tool/name", "/pricing", "/risk_class"}, nil},
		{"wildcard", []string{"/actions/*/id", "/actions/*/cost/amount"}, nil},
		{"root-exclude", []string{"/"}, []string{"/actions/*/examples", "/**/input_schema", "/**/output_schema"}},
	} {
		include, exclude := pointers(b, bc.include), pointers(b, bc.exclude)
		b.Run(bc.name+"/decode+apply", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				doc, err := canon.DecodeCanonical(docs[i%len(docs)])
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := Apply(doc, include, exclude); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(bc.name+"/applyraw", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, _, err := ApplyRaw(docs[i%len(docs)], include, exclude); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
