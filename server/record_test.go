package server

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"pgregory.net/rapid"
)

// TestCandidateDocEqualsMapOracle: the candidate events carry is written
// by the query package's writer, byte for byte what the server's own map
// builder (kept below as the oracle) gave: random ids, scores, payloads,
// evaluations with values of every JSON type and escapes, rank 0 or not,
// over budget or not.
func TestCandidateDocEqualsMapOracle(t *testing.T) {
	strs := []string{"", "a", "ä—🏃", "quote\"back\\slash", "tab\tnl\n\u0001", "\u2028"}
	vals := []string{`null`, `true`, `1`, `1.0`, `-0`, `1e21`, `0.000001`, `"x"`, `"\u00e9"`, `[]`, `[1,"a",{"b":null}]`,
		`{}`, `{"z":1,"a":[true],"é":"e","\ud83c\udfc3":0}`}
	rapid.Check(t, func(t *rapid.T) {
		value := func(label string) any {
			v, err := canon.Decode([]byte(rapid.SampledFrom(vals).Draw(t, label)), nil)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		c := &query.Candidate{CandidateID: rapid.SampledFrom(strs).Draw(t, "id"), Rank: rapid.IntRange(0, 3).Draw(t, "rank"),
			Score:      canon.Number(rapid.SampledFrom([]string{"", "0.5", "1", "-2.50"}).Draw(t, "score")),
			OverBudget: rapid.Bool().Draw(t, "over")}
		if p, ok := value("payload").(map[string]any); ok {
			c.Payload = canon.AppendValue(nil, p)
		}
		c.Record = query.DecisionRecord{DecisionID: rapid.SampledFrom(strs).Draw(t, "decision"), EvaluatedAt: "2026-05-04T00:00:00Z",
			Outcome:     rapid.SampledFrom([]string{"accept", "reject", "over_budget"}).Draw(t, "outcome"),
			Explanation: rapid.SampledFrom(strs).Draw(t, "explanation")}
		for n := rapid.IntRange(0, 3).Draw(t, "evals"); n > 0; n-- {
			c.Record.Evaluations = append(c.Record.Evaluations, aql.Evaluation{Path: rapid.SampledFrom(strs).Draw(t, "path"),
				Operator: rapid.SampledFrom([]string{"eq", "not_in", "matches"}).Draw(t, "op"), Value: value("value"),
				CandidateValue: canon.AppendValue(nil, value("candidate")), HasCandidateValue: rapid.Bool().Draw(t, "has"),
				Passed: rapid.Bool().Draw(t, "passed"), Reason: rapid.SampledFrom(strs).Draw(t, "reason")})
		}
		want, err := canon.AppendCanonical(nil, oldCandidateDoc(c))
		if err != nil {
			t.Fatal(err)
		}
		got, err := canon.AppendCanonical(nil, map[string]any{"candidate": candidateDoc(c)})
		if err != nil {
			t.Fatal(err)
		}
		if want = append(append([]byte(`{"candidate":`), want...), '}'); !bytes.Equal(got, want) {
			t.Fatalf("candidateDoc\n%s\nthe map oracle\n%s", got, want)
		}
	})
}

// oldDecisionDoc is a Decision Record as oap-aql-decision.schema.json has it
// (the same form query writes into an IntentResponse).
func oldDecisionDoc(rec *query.DecisionRecord) map[string]any {
	doc := map[string]any{"decision_id": rec.DecisionID, "evaluated_at": rec.EvaluatedAt,
		"outcome": rec.Outcome, "constraint_evaluations": oldEvaluationsDoc(rec.Evaluations)}
	if rec.Explanation != "" {
		doc["explanation"] = rec.Explanation
	}
	return doc
}

func oldEvaluationsDoc(evals []aql.Evaluation) []any {
	out := make([]any, len(evals))
	for i, e := range evals {
		m := map[string]any{"path": e.Path, "operator": e.Operator, "value": e.Value, "passed": e.Passed}
		if e.HasCandidateValue {
			m["candidate_value"] = e.CandidateValue
		}
		if e.Reason != "" { // a passed leaf has one under a failed not
			m["reason"] = e.Reason
		}
		out[i] = m
	}
	return out
}

// oldCandidateDoc is a candidate as an IntentResponse lists it; rank 0 is
// left out (streams that do not rank).
func oldCandidateDoc(c *query.Candidate) map[string]any {
	m := map[string]any{"candidate_id": c.CandidateID, "payload": oldPayload(c), "decision_record": oldDecisionDoc(&c.Record)}
	if c.Rank > 0 {
		m["rank"] = canon.Number(strconv.Itoa(c.Rank))
	}
	if c.Score != "" {
		m["score"] = c.Score
	}
	if c.OverBudget {
		m["over_budget"] = true
	}
	return m
}

// oldPayload is the payload as the map builder held it: no payload was a
// nil map, written {}.
func oldPayload(c *query.Candidate) any {
	if len(c.Payload) == 0 {
		return map[string]any(nil)
	}
	return c.Payload
}
