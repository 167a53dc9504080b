package eval

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/cockroachdb/datadriven"
)

// TestDataDriven runs testdata/*: one file per operator plus combinators.
//
//	doc                  loads the JSON document in the input
//	eval [timeout=50ms]  compiles the constraint in the input, evaluates it
//	                     against the document, and prints the outcome and
//	                     every leaf's Evaluation; it also checks that Match
//	                     agrees with Eval, and MatchRaw and EvalRaw over
//	                     the canonical bytes with both over the canonical
//	                     document.
//	eval blame           the same, then the leaf Blame names
//
// Regenerate the expected output with `go test ./query/eval -rewrite`.
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if strings.Contains(path, "testdata/rapid") {
			return // rapid's own failure files, not test cases
		}
		if strings.Contains(path, "testdata/regex") {
			return // node's RegExp verdicts, read by TestRegexAgreesWithNode
		}
		var doc any
		e := New()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "doc":
				// As the store holds it: numbers in RFC 8785 form.
				_, v, err := canon.Canonical([]byte(d.Input), nil)
				if err != nil {
					d.Fatalf(t, "doc: %v", err)
				}
				doc = v
				return ""
			case "eval":
				return runEval(t, e, d, doc)
			}
			d.Fatalf(t, "unknown directive %q", d.Cmd)
			return ""
		})
	})
}

func runEval(t *testing.T, e *Evaluator, d *datadriven.TestData, doc any) string {
	timeout := defaultMatchTimeout
	if d.HasArg("timeout") {
		var s string
		d.ScanArgs(t, "timeout", &s)
		var err error
		if timeout, err = time.ParseDuration(s); err != nil {
			d.Fatalf(t, "timeout: %v", err)
		}
	}
	n, err := compileJSON(d.Input, timeout)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	ok, rec := e.Eval(n, doc, nil)
	if m := e.Match(n, doc); m != ok {
		d.Fatalf(t, "Match = %v, Eval = %v", m, ok)
	}
	c, tree := canonicalDoc(t, doc)
	checkRawAgrees(t, e, n, c, tree)
	out := formatEval(ok, rec)
	if d.HasArg("blame") {
		out += "blame: "
		if i := Blame(n, rec); i >= 0 {
			out += rec[i].Path + " " + rec[i].Operator + "\n"
		} else {
			out += "none\n"
		}
	}
	return out
}

// formatEval prints the outcome, then one line per leaf:
// "<path> <op> <value> -> passed|failed, candidate <v>|no candidate[: reason]".
func formatEval(ok bool, rec []aql.Evaluation) string {
	var b strings.Builder
	fmt.Fprintln(&b, ok)
	for _, ev := range rec {
		b.WriteString(formatEvaluation(ev))
		b.WriteByte('\n')
	}
	return b.String()
}

func formatEvaluation(ev aql.Evaluation) string {
	path := ev.Path
	if path == "" {
		path = `""`
	}
	s := fmt.Sprintf("%s %s %s -> %s, %s", path, ev.Operator, jsonText(ev.Value), passedText(ev.Passed), candidateText(ev))
	if ev.Reason != "" {
		s += ": " + ev.Reason
	}
	return s
}

func passedText(ok bool) string {
	if ok {
		return "passed"
	}
	return "failed"
}

func candidateText(ev aql.Evaluation) string {
	if !ev.HasCandidateValue {
		return "no candidate"
	}
	return "candidate " + string(ev.CandidateValue)
}

func jsonText(v any) string { return string(canon.AppendValue(nil, v)) }
