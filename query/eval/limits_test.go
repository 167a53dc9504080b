package eval

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// evalEveryWay evaluates n over the JSON document src through Eval,
// Match, EvalRaw and MatchRaw, checks that the four agree, and returns
// Eval's answer and the leaf's record.
func evalEveryWay(t *testing.T, n *aql.Node, src string) (bool, aql.Evaluation) {
	t.Helper()
	tree := mustDecode(t, src)
	raw, err := canon.Canonicalize(nil, []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := New()
	ok, rec := e.Eval(n, tree, nil)
	okRaw, recRaw := e.EvalRaw(n, raw, nil)
	if e.Match(n, tree) != ok || e.MatchRaw(n, raw) != ok || okRaw != ok {
		t.Fatalf("Eval, Match, EvalRaw and MatchRaw disagree (Eval %v)", ok)
	}
	if len(rec) != 1 || len(recRaw) != 1 || rec[0].Reason != recRaw[0].Reason {
		t.Fatalf("records differ: %+v and %+v", rec, recRaw)
	}
	return ok, rec[0]
}

// TestLimitRegexMatchTime: the match timeout (aql.Options.RegexTimeout,
// set on each compiled regex) bounds a leaf's regex work on one document,
// however many strings its path resolves to. Go's regexp would be linear
// in the input, but matches is ECMAScript (regexp2, a backtracking
// engine), so the time is bounded by the timeout, not by the size of the
// pattern or of the input. Only outcomes are asserted, never durations.
func TestLimitRegexMatchTime(t *testing.T) {
	const pattern = `^(a+)+$`
	hostile := strconv.Quote(strings.Repeat("a", 40) + "!") // catastrophic backtracking

	// Within the budget the answer is exact: a thousand quick misses,
	// then a match, and the leaf passes on the match.
	n := mustCompile(t, `{"path": "/s/*", "operator": "matches", "value": "`+pattern+`"}`, time.Second)
	quick := strings.Repeat(`"b",`, 1000) + `"aaaa"`
	if ok, rec := evalEveryWay(t, n, `{"s": [`+quick+`]}`); !ok || string(rec.CandidateValue) != `"aaaa"` {
		t.Fatalf("within the budget: %v %+v, want a pass on \"aaaa\"", ok, rec)
	}

	// One match past the timeout fails the leaf with the reason; it
	// does not hang.
	n = mustCompile(t, `{"path": "/s/*", "operator": "matches", "value": "`+pattern+`"}`, 20*time.Millisecond)
	if ok, rec := evalEveryWay(t, n, `{"s": [`+hostile+`]}`); ok || rec.Reason != ReasonRegexTimeout {
		t.Fatalf("hostile value: %v %+v, want a failure with reason %q", ok, rec, ReasonRegexTimeout)
	}

	// The timeout is the leaf's budget on the document, not each value's:
	// after many hostile values, a matching one is not reached. Without
	// the budget this document would cost 200 timeouts (a 4 MiB document
	// could hold a hundred thousand hostile strings) and then pass.
	many := strings.Repeat(hostile+",", 200) + `"aaaa"`
	if ok, rec := evalEveryWay(t, n, `{"s": [`+many+`]}`); ok || rec.Reason != ReasonRegexTimeout {
		t.Fatalf("200 hostile values: %v %+v, want a failure with reason %q after the budget", ok, rec, ReasonRegexTimeout)
	}

	// The budget is per leaf and per document: the next document, and
	// another leaf on the same document, start afresh.
	if ok, _ := evalEveryWay(t, n, `{"s": ["aaaa"]}`); !ok {
		t.Fatal("a spent budget carried over to the next document")
	}
	two := mustCompile(t, `{"any_of": [{"path": "/s/*", "operator": "matches", "value": "`+pattern+`"},
		{"path": "/t", "operator": "matches", "value": "`+pattern+`"}]}`, 20*time.Millisecond)
	tree := mustDecode(t, `{"s": [`+hostile+`], "t": "aaaa"}`)
	ok, rec := New().Eval(two, tree, nil)
	if !ok || rec[0].Reason != ReasonRegexTimeout || !rec[1].Passed {
		t.Fatalf("second leaf after a timed-out one: %v %+v, want it to pass", ok, rec)
	}
}
