package eval

import (
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// canonicalDoc returns the canonical bytes of doc and the tree
// DecodeCanonical reads from them: the pair MatchRaw/EvalRaw and
// Match/Eval must agree on. (Canonical form respells numbers, so the
// original doc is not the reference.)
func canonicalDoc(t fataler, doc any) ([]byte, any) {
	t.Helper()
	c, err := canon.Canonicalize(nil, canon.AppendValue(nil, doc), nil)
	if err != nil {
		t.Fatalf("canonicalize %s: %v", canon.AppendValue(nil, doc), err)
	}
	tree, err := canon.DecodeCanonical(c)
	if err != nil {
		t.Fatalf("decode %s: %v", c, err)
	}
	return c, tree
}

// checkRawAgrees evaluates n over the tree and over its bytes, with and
// without records, and fails unless the answers and records are identical.
func checkRawAgrees(t fataler, e *Evaluator, n *aql.Node, c []byte, tree any) {
	t.Helper()
	want, wantRec := e.Eval(n, tree, nil)
	got, gotRec := e.EvalRaw(n, c, nil)
	if m, mr := e.Match(n, tree), e.MatchRaw(n, c); got != want || m != want || mr != want {
		t.Fatalf("Eval %v, EvalRaw %v, Match %v, MatchRaw %v\ndoc %s", want, got, m, mr, c)
	}
	if d := cmp.Diff(wantRec, gotRec); d != "" {
		t.Fatalf("records differ (-Eval +EvalRaw):\n%s\ndoc %s", d, c)
	}
	// The table path, with one Members shared by the calls as judge shares
	// it, so that later calls meet a table the earlier ones built.
	d := canon.NewMembers(c)
	mt := e.MatchMembers(n, d)
	gotT, gotTRec := e.EvalMembers(n, d, nil)
	if mt != want || gotT != want || e.MatchMembers(n, d) != want {
		t.Fatalf("Eval %v, EvalMembers %v, MatchMembers %v\ndoc %s", want, gotT, mt, c)
	}
	if d := cmp.Diff(wantRec, gotTRec); d != "" {
		t.Fatalf("records differ (-Eval +EvalMembers):\n%s\ndoc %s", d, c)
	}
}

// TestRawMatchesTree: on random documents and random constraint trees over
// the whole operator set, the raw path gives Eval's and Match's answers and
// Eval's records exactly.
func TestRawMatchesTree(t *testing.T) {
	e := New()
	rapid.Check(t, func(t *rapid.T) {
		c, tree := canonicalDoc(t, genDocument(t))
		g := &genCtx{entries: docEntries(tree, nil, nil)}
		for range constraintsPerDocument {
			n := mustCompileValue(t, g.constraint(t, rapid.IntRange(0, 3).Draw(t, "tree depth")))
			checkRawAgrees(t, e, n, c, tree)
		}
	})
}

// TestRawRecordsOwnTheirValues: EvalRaw's candidate values share nothing
// with the bytes, which a store may reuse as soon as the read ends.
func TestRawRecordsOwnTheirValues(t *testing.T) {
	src := `{"a":{"s":"text","e":"tab\there","n":12.5,"o":{"k":["v"]},"arr":["x","y"]}}`
	c, tree := canonicalDoc(t, mustDecode(t, src))
	n := mustCompile(t, `[{"path": "/a/s", "operator": "eq", "value": "text"},
		{"path": "/a/e", "operator": "eq", "value": "nope"},
		{"path": "/a/n", "operator": "gt", "value": 1},
		{"path": "/a/o", "operator": "exists", "value": true},
		{"path": "/a/arr", "operator": "contains", "value": "y"},
		{"path": "/a/*", "operator": "matches", "value": "^t"}]`, time.Second)
	_, want := New().Eval(n, tree, nil)
	_, got := New().EvalRaw(n, c, nil)
	for i := range c {
		c[i] = '#'
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("records changed with the bytes (-want +got):\n%s", d)
	}
}

// TestRawOddDocuments: documents that are not objects, empty containers,
// strings with escapes and non-BMP characters, names with escapes.
func TestRawOddDocuments(t *testing.T) {
	docs := []string{`null`, `true`, `"2024-05-01T10:00:00Z"`, `12`, `[]`, `{}`, `[1,"1",[1]]`,
		`{"a\"b":{"c\\d":"x\ty","":[{"":"é𝄞\u0001"}]},"*":{"**":"star"},"0":["zero"]}`,
		`{"a":[[],{},[[]],""],"b":{"c":{"d":{"e":"deep"}}}}`}
	leaves := []string{
		`{"path": "", "operator": "exists", "value": true}`,
		`{"path": "/", "operator": "eq", "value": 12}`,
		`{"path": "/", "operator": "after", "value": "2024-01-01T00:00:00Z"}`,
		`{"path": "/*", "operator": "eq", "value": "1"}`,
		`{"path": "/**", "operator": "eq", "value": "x\ty"}`,
		`{"path": "/a\"b/c\\d", "operator": "matches", "value": "\\t"}`,
		`{"path": "/a\"b//*/", "operator": "contains", "value": "𝄞"}`,
		`{"path": "/*/**", "operator": "eq", "value": "star"}`,
		`{"path": "/0/0", "operator": "in", "value": ["zero", 1]}`,
		`{"path": "/a/*", "operator": "contains", "value": []}`,
		`{"path": "/a/*", "operator": "eq", "value": {}}`,
		`{"path": "/**/e", "operator": "ne", "value": "deep"}`,
		`{"path": "/*", "operator": "contains", "value": [1, [1]]}`,
		`{"path": "/**", "operator": "exists", "value": false}`,
	}
	e := New()
	for _, d := range docs {
		c, tree := canonicalDoc(t, mustDecode(t, d))
		for _, l := range leaves {
			checkRawAgrees(t, e, mustCompile(t, l, time.Second), c, tree)
		}
	}
}

// TestRawAllocations: MatchRaw allocates nothing for leaves whose values
// are scalars, over paths with and without wildcards, passing and failing.
func TestRawAllocations(t *testing.T) {
	c, _ := canonicalDoc(t, mustDecode(t, `{
		"risk_class": "high", "tool": {"id": "t-1", "name": "Tab\there"},
		"price": {"amount": "99.99", "currency": "EUR"}, "n": 1.50, "big": 12345678901234567890,
		"at": "2024-05-01T12:00:00+02:00", "tags": ["a", "b", "c\"q"], "ok": true, "none": null,
		"actions": [{"side_effects": "none"}, {"side_effects": "irreversible"}, {"id": 3}]}`))
	for _, src := range []string{
		`{"path": "/tool/id", "operator": "eq", "value": "t-1"}`,
		`{"path": "/tool/id", "operator": "eq", "value": "t-2"}`,
		`{"path": "/tool/name", "operator": "eq", "value": "Tab\there"}`,
		`{"path": "/risk_class", "operator": "in", "value": ["low", "high"]}`,
		`{"path": "/risk_class", "operator": "not_in", "value": ["low", "medium"]}`,
		`{"path": "/n", "operator": "eq", "value": 1.5}`,
		`{"path": "/n", "operator": "lte", "value": 2}`,
		`{"path": "/big", "operator": "gt", "value": 1e3}`,
		`{"path": "/price/amount", "operator": "lte", "value": "100.00"}`,
		`{"path": "/price/amount", "operator": "gt", "value": 100}`,
		`{"path": "/at", "operator": "gte", "value": "2024-05-01T10:00:00Z"}`,
		`{"path": "/at", "operator": "after", "value": "2024-05-01T10:00:01Z"}`,
		`{"path": "/at", "operator": "within", "value": ["2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"]}`,
		`{"path": "/ok", "operator": "eq", "value": true}`,
		`{"path": "/none", "operator": "eq", "value": null}`,
		`{"path": "/tool/id", "operator": "exists", "value": true}`,
		`{"path": "/tool/nope", "operator": "exists", "value": false}`,
		`{"path": "/actions/*/side_effects", "operator": "eq", "value": "irreversible"}`,
		`{"path": "/actions/*/side_effects", "operator": "eq", "value": "absent"}`,
		`{"path": "/**/id", "operator": "eq", "value": 3}`,
		`{"path": "/tags", "operator": "contains", "value": ["c\"q", "a"]}`,
		`{"path": "/tags/*", "operator": "contains", "value": "b"}`,
		`{"not": {"any_of": [{"path": "/risk_class", "operator": "in", "value": ["low"]}, {"path": "/x", "operator": "exists", "value": true}]}}`,
	} {
		n := mustCompile(t, src, time.Second)
		e := New()
		e.MatchRaw(n, c) // the walker grows to the document's depth once
		if allocs := testing.AllocsPerRun(100, func() { e.MatchRaw(n, c) }); allocs != 0 {
			t.Errorf("%s: %v allocations per MatchRaw", src, allocs)
		}
		d := canon.NewMembers(c)
		e.MatchMembers(n, d) // and the table to the document's width
		if allocs := testing.AllocsPerRun(100, func() { d.Reset(c); e.MatchMembers(n, d) }); allocs != 0 {
			t.Errorf("%s: %v allocations per MatchMembers", src, allocs)
		}
	}
}

// TestCandidateValueBytes: a record's candidate value is the RFC 8785
// form of the witness (or first value), the same from the tree and from
// the bytes, and the bytes' record owns its copy: it does not change when
// the document's buffer is reused.
func TestCandidateValueBytes(t *testing.T) {
	src := `{"n": [7, 1.50], "s": "a\u00e9\n", "o": {"b": [true, null], "a": 1e2}}`
	for _, c := range []struct{ leaf, want string }{
		{`{"path": "/n/*", "operator": "gt", "value": 1}`, `7`},
		{`{"path": "/n/*", "operator": "eq", "value": 1.5}`, `1.5`},
		{`{"path": "/n/*", "operator": "eq", "value": 9}`, `7`},
		{`{"path": "/s", "operator": "contains", "value": "é"}`, `"aé\n"`},
		{`{"path": "/o", "operator": "exists", "value": true}`, `{"a":100,"b":[true,null]}`},
	} {
		n := mustCompile(t, c.leaf, time.Second)
		_, tree := New().Eval(n, mustDecode(t, src), nil)
		raw, err := canon.Canonicalize(nil, []byte(src), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, rec := New().EvalRaw(n, raw, nil)
		for i := range raw {
			raw[i] = 'x'
		}
		if got := string(rec[0].CandidateValue); got != c.want || string(tree[0].CandidateValue) != c.want {
			t.Errorf("%s: raw %s, tree %s, want %s", c.leaf, got, tree[0].CandidateValue, c.want)
		}
		if v, err := rec[0].DecodeCandidateValue(); err != nil || string(canon.AppendValue(nil, v)) != c.want {
			t.Errorf("%s: DecodeCandidateValue %v, %v", c.leaf, v, err)
		}
	}
}
