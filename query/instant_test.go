package query

import (
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/eval"
	"github.com/aqlstore/aqlstore/store"
)

// TestInstantsFullPrecision: instants compare at every fractional digit,
// in the evaluator and in the index's range keys, so the planner's answer
// is the full scan's (acceptedNums checks the two agree).
func TestInstantsFullPrecision(t *testing.T) {
	const day = "2026-01-01T00:00:00."
	s, ix := openIndexed(t,
		`{"t":"`+day+`123456789Z"}`,                    // #1
		`{"t":"`+day+`1234567891Z"}`,                   // #2
		`{"t":"`+day+`12345678900Z"}`,                  // #3, the instant of #1
		`{"t":"`+day+`1234567895Z"}`,                   // #4
		`{"t":"2025-12-31T19:00:00.1234567891-05:00"}`, // #5, the instant of #2
	)
	for _, c := range []struct{ constraint, want string }{
		{`{"path":"/t","operator":"after","value":"` + day + `123456789Z"}`, "#2 #4 #5"},
		{`{"path":"/t","operator":"gt","value":"` + day + `123456789Z"}`, "#2 #4 #5"},
		{`{"path":"/t","operator":"gte","value":"` + day + `1234567891Z"}`, "#2 #4 #5"},
		{`{"path":"/t","operator":"gt","value":"` + day + `1234567891Z"}`, "#4"},
		{`{"path":"/t","operator":"before","value":"` + day + `1234567891Z"}`, "#1 #3"},
		{`{"path":"/t","operator":"lte","value":"` + day + `12345678910Z"}`, "#1 #2 #3 #5"},
		{`{"path":"/t","operator":"lt","value":"` + day + `12345678905Z"}`, "#1 #3"},
		{`{"path":"/t","operator":"within","value":["` + day + `1234567891Z","` + day + `1234567895Z"]}`, "#2 #4 #5"},
		{`{"path":"/t","operator":"within","value":["` + day + `12345678901Z","` + day + `1234567894Z"]}`, "#2 #5"},
		{`{"path":"/t","operator":"outside","value":["` + day + `1234567891Z","` + day + `1234567894Z"]}`, "#1 #3 #4"},
		{`{"path":"/t","operator":"outside","value":{"from":"` + day + `123456789Z","to":"` + day + `1234567891Z"}}`, "#4"},
	} {
		b, _ := leafIntent(c.constraint)
		in, err := aql.Parse(b, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.constraint, err)
		}
		if got := acceptedNums(t, s, in, store.Public, ix); got != c.want {
			t.Errorf("%s: accepted %s, want %s", c.constraint, got, c.want)
		}
	}
}

// TestInstantsFullPrecisionEval: the evaluator alone, on a decoded
// document, past the ninth fractional digit.
func TestInstantsFullPrecisionEval(t *testing.T) {
	b, _ := leafIntent(`{"path":"/t","operator":"after","value":"2026-01-01T00:00:00.123456789Z"}`)
	in, err := aql.Parse(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := eval.New()
	for doc, want := range map[string]bool{
		`{"t":"2026-01-01T00:00:00.1234567891Z"}`:  true,
		`{"t":"2026-01-01T00:00:00.1234567890Z"}`:  false,
		`{"t":"2026-01-01T00:00:00.12345678899Z"}`: false,
	} {
		v, err := canon.Decode([]byte(doc), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Match(in.Constraints, v); got != want {
			t.Errorf("%s after .123456789: %v, want %v", doc, got, want)
		}
	}
	if !strings.Contains(canon.Instant{Sub: "1"}.String(), ".0000000001Z") {
		t.Errorf("Instant.String drops digits: %s", canon.Instant{Sub: "1"})
	}
}
