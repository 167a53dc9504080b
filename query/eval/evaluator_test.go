package eval

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

func mustCompile(t testing.TB, src string, timeout time.Duration) *aql.Node {
	t.Helper()
	n, err := compileJSON(src, timeout)
	if err != nil {
		t.Fatalf("compile %s: %v", src, err)
	}
	return n
}

func mustDecode(t testing.TB, src string) any {
	t.Helper()
	v, err := canon.Decode([]byte(src), nil)
	if err != nil {
		t.Fatalf("decode %s: %v", src, err)
	}
	return v
}

// TestMatchesReDoS: catastrophic backtracking ends at MatchTimeout and
// fails the leaf with a reason. Only the outcome is asserted, never the
// time it took.
func TestMatchesReDoS(t *testing.T) {
	n := mustCompile(t, `{"path": "/s", "operator": "matches", "value": "^(a+)+$"}`, 50*time.Millisecond)
	doc := map[string]any{"s": strings.Repeat("a", 40) + "!"}
	e := New()
	ok, rec := e.Eval(n, doc, nil)
	if ok || len(rec) != 1 || rec[0].Passed || rec[0].Reason != ReasonRegexTimeout {
		t.Fatalf("Eval = %v %+v, want a failure with reason %q", ok, rec, ReasonRegexTimeout)
	}
	if e.Match(n, doc) {
		t.Fatal("Match passed a timed-out leaf")
	}
	if !e.Match(n, map[string]any{"s": "aaaa"}) {
		t.Fatal("the same regex no longer matches a short input")
	}
}

// TestNotOverTimedOutLeaf documents the one asymmetry of a time
// bound: not(matches) over a timed-out leaf passes, since the leaf failed.
func TestNotOverTimedOutLeaf(t *testing.T) {
	n := mustCompile(t, `{"not": {"path": "/s", "operator": "matches", "value": "^(a+)+$"}}`, 50*time.Millisecond)
	doc := map[string]any{"s": strings.Repeat("a", 40) + "!"}
	ok, rec := New().Eval(n, doc, nil)
	if !ok || rec[0].Reason != ReasonRegexTimeout {
		t.Fatalf("Eval = %v %+v", ok, rec)
	}
}

func TestEvalAppendsToRecords(t *testing.T) {
	n := mustCompile(t, `[{"path": "/a", "operator": "eq", "value": 1}, {"path": "/b", "operator": "exists", "value": false}]`, time.Second)
	prior := []aql.Evaluation{{Path: "/prior"}}
	ok, rec := New().Eval(n, mustDecode(t, `{"a": 1.0}`), prior)
	if !ok || len(rec) != 3 || rec[0].Path != "/prior" || rec[1].Path != "/a" || rec[2].Path != "/b" {
		t.Fatalf("Eval = %v %+v", ok, rec)
	}
}

func TestZeroEvaluatorAndNilTree(t *testing.T) {
	var e Evaluator
	if !e.Match(nil, nil) {
		t.Fatal("a nil tree holds for every document")
	}
	if ok, rec := e.Eval(nil, nil, nil); !ok || len(rec) != 0 {
		t.Fatalf("Eval(nil) = %v %v", ok, rec)
	}
	n := mustCompile(t, `{"path": "/a", "operator": "eq", "value": "x"}`, time.Second)
	if !e.Match(n, map[string]any{"a": "x"}) {
		t.Fatal("the zero Evaluator does not evaluate")
	}
}

// TestMalformedTrees: a tree the compiler should never build does not
// hold, and Eval and Match still agree on it.
func TestMalformedTrees(t *testing.T) {
	leaf := mustCompile(t, `{"path": "/a", "operator": "exists", "value": true}`, time.Second)
	doc := map[string]any{"a": 1}
	for name, n := range map[string]*aql.Node{
		"unknown kind":  {Kind: 99},
		"leaf no leaf":  {Kind: aql.NodeLeaf},
		"not no child":  {Kind: aql.NodeNot},
		"not two":       {Kind: aql.NodeNot, Children: []*aql.Node{leaf, leaf}},
		"empty any_of":  {Kind: aql.NodeAnyOf},
		"bad operator":  {Kind: aql.NodeLeaf, Leaf: &aql.Leaf{Operator: 99}},
		"regex missing": {Kind: aql.NodeLeaf, Leaf: &aql.Leaf{Operator: aql.OpMatches}},
	} {
		ok, _ := New().Eval(n, doc, nil)
		if ok || New().Match(n, doc) {
			t.Errorf("%s: holds", name)
		}
	}
	if !New().Match(&aql.Node{Kind: aql.NodeAllOf}, doc) {
		t.Error("an empty all_of does not hold")
	}
}

func TestReasonValueIsShortened(t *testing.T) {
	n := mustCompile(t, `{"path": "/a", "operator": "eq", "value": "`+strings.Repeat("é", 100)+`"}`, time.Second)
	_, rec := New().Eval(n, map[string]any{"a": "x"}, nil)
	r := rec[0].Reason
	if !strings.HasPrefix(r, ReasonNotSatisfied+`eq "éé`) || !strings.HasSuffix(r, "...") || len(r) > 100 {
		t.Fatalf("reason %q", r)
	}
}

// TestAllocations: on single-valued paths Match does not allocate per
// document, failing leaves included, and Eval (into a slice with room)
// allocates only the RFC 8785 bytes of its records' candidate values (a
// buffer grown at most twice each). Wildcard paths allocate inside
// canon's walker, which is not ours.
func TestAllocations(t *testing.T) {
	doc := mustDecode(t, `{"risk_class": "high", "price": "99.99", "n": 1.50, "at": "2024-05-01T12:00:00+02:00", "tags": ["a", "b"]}`)
	for _, src := range []string{
		`{"path": "/risk_class", "operator": "eq", "value": "high"}`,
		`{"path": "/risk_class", "operator": "eq", "value": "low"}`,
		`{"path": "/price", "operator": "gt", "value": "100.00"}`,
		`{"path": "/n", "operator": "eq", "value": 1.5}`,
		`{"path": "/price", "operator": "lte", "value": "100.00"}`,
		`{"path": "/at", "operator": "before", "value": "2024-05-01T10:00:01Z"}`,
		`{"path": "/tags", "operator": "contains", "value": ["b", "a"]}`,
		`{"not": {"any_of": [{"path": "/risk_class", "operator": "in", "value": ["low", "medium"]}, {"path": "/x", "operator": "exists", "value": true}]}}`,
	} {
		n := mustCompile(t, src, time.Second)
		e := New()
		if allocs := testing.AllocsPerRun(100, func() { e.Match(n, doc) }); allocs != 0 {
			t.Errorf("%s: %v allocations per Match", src, allocs)
		}
		rec := make([]aql.Evaluation, 0, 4)
		allocs := testing.AllocsPerRun(100, func() { _, rec = e.Eval(n, doc, rec[:0]) })
		values := 0
		for _, r := range rec {
			if r.HasCandidateValue {
				values++
			}
		}
		if allocs > float64(2*values) {
			t.Errorf("%s: %v allocations per Eval, %d candidate values", src, allocs, values)
		}
	}
}

// TestSharedTreeAcrossGoroutines: a compiled tree is read-only, so
// goroutines may share it, each with its own Evaluator (run with -race).
func TestSharedTreeAcrossGoroutines(t *testing.T) {
	n := mustCompile(t, `{"any_of": [
		{"path": "/price", "operator": "lte", "value": "100.00"},
		{"path": "/name", "operator": "matches", "value": "^[A-Z]"},
		{"path": "/at", "operator": "within", "value": ["2024-01-01T00:00:00Z", "2025-01-01T00:00:00+01:00"]},
		{"path": "/tags/*", "operator": "in", "value": ["x", 1.0]}
	]}`, time.Second)
	doc := mustDecode(t, `{"price": "100.5", "name": "lower", "at": "2023-06-01T00:00:00Z", "tags": ["y", 1]}`)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			e := New()
			for range 200 {
				if ok, rec := e.Eval(n, doc, nil); !ok || len(rec) != 4 || !e.Match(n, doc) {
					t.Errorf("Eval = %v %+v", ok, rec)
					return
				}
			}
		})
	}
	wg.Wait()
}
