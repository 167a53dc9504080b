package query

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/eval"
	"pgregory.net/rapid"
)

// TestNeedlesNeverRuleOutAMatch: a document whose bytes fail the needles
// of a constraint tree never matches it. Documents and trees come from
// the differential test's vocabulary, plus strings written escaped (a
// quote, a backslash, a control character), which turn the needles off
// for the document that holds them.
func TestNeedlesNeverRuleOutAMatch(t *testing.T) {
	escaped := []string{`"q\"uote"`, `"back\\slash"`, `"tab\tx"`, `"sale\u0001"`}
	ruledOut := 0
	rapid.Check(t, func(t *rapid.T) {
		body := genObject(t, 0)
		if rapid.IntRange(0, 4).Draw(t, "escape") == 0 {
			body = fmt.Sprintf(`{"a":%s,"b":%s}`, rapid.SampledFrom(escaped).Draw(t, "esc"), body)
		}
		v, err := canon.Decode([]byte(body), nil)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		doc := canon.AppendValue(nil, v)
		src := genIntent(t)
		if rapid.Bool().Draw(t, "simple") { // a leaf that sets needles, so that many documents fail them
			leaf := fmt.Sprintf(`{"path":%q,"operator":%q,"value":%q}`, genPath(t),
				rapid.SampledFrom([]string{"eq", "contains"}).Draw(t, "op"), rapid.SampledFrom(append([]string{`q"uote`, `back\slash`, "uote"}, diffStrings...)).Draw(t, "str"))
			src = strings.Replace(src, `"constraints":`, `"constraints":[`+leaf+`,`, 1)
			src = strings.Replace(src, `,"projection"`, `],"projection"`, 1)
		}
		in, err := aql.Parse([]byte(src), nil)
		if err != nil {
			t.Skip("a generated operand the intent rules refuse")
		}
		nd := needlesOf(in.Constraints)
		if nd.mayMatch(doc) {
			return
		}
		ruledOut++
		if eval.New().MatchMembers(in.Constraints, canon.NewMembers(doc)) {
			t.Fatalf("needles ruled out a document that matches\ndocument: %s\nconstraints: %s", doc, in.Document["constraints"])
		}
	})
	t.Logf("%d documents ruled out by their bytes", ruledOut)
	if ruledOut == 0 {
		t.Error("no document was ruled out: the test no longer checks anything")
	}
}

// TestNeedlesOf shows the condition each kind of constraint sets.
func TestNeedlesOf(t *testing.T) {
	for _, tc := range []struct{ constraints, want string }{
		{`{"path":"/a","operator":"eq","value":"sale"}`, `"sale"`},
		{`{"path":"/a","operator":"eq","value":1}`, `none`},
		{`{"path":"/a","operator":"eq","value":"say \"hi\""}`, `none`},
		{`{"path":"/a","operator":"in","value":["x","y"]}`, `any("x" "y")`},
		{`{"path":"/a","operator":"in","value":["x",2]}`, `none`},
		{`{"path":"/a","operator":"contains","value":"LI"}`, `LI`},
		{`{"path":"/a","operator":"contains","value":["x","y"]}`, `all("x" "y")`},
		{`{"path":"/a","operator":"ne","value":"x"}`, `none`},
		{`{"not":{"path":"/a","operator":"eq","value":"x"}}`, `none`},
		{`[{"path":"/a","operator":"eq","value":"x"},{"path":"/b","operator":"gt","value":1}]`, `"x"`},
		{`{"any_of":[{"path":"/a","operator":"eq","value":"x"},{"path":"/b","operator":"gt","value":1}]}`, `none`},
		{`{"any_of":[{"path":"/a","operator":"eq","value":"x"},{"path":"/b","operator":"contains","value":"y"}]}`, `any("x" y)`},
	} {
		src := `{"intent_id":"urn:oap:intent:n","issuer_did":"did:web:n.example","category":"knowledge","constraints":` +
			tc.constraints + `,"projection":{"include":["/"]},"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},` +
			`"resolution_policy":"ranked_set","signature":{"alg":"EdDSA","value":"x"}}`
		in, err := aql.Parse([]byte(src), nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.constraints, err)
		}
		if got := needlesOf(in.Constraints).String(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.constraints, got, tc.want)
		}
	}
}

// String writes the condition for tests: a literal, or all(…) / any(…).
func (nd *needles) String() string {
	if nd == nil {
		return "none"
	}
	if nd.kids == nil {
		return string(nd.lit)
	}
	parts := make([]string, len(nd.kids))
	for i, k := range nd.kids {
		parts[i] = k.String()
	}
	op := "all"
	if nd.any {
		op = "any"
	}
	return op + "(" + strings.Join(parts, " ") + ")"
}
