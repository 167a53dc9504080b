package server

import (
	"strconv"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
)

// decisionDoc is a Decision Record as oap-aql-decision.schema.json has it
// (the same form query writes into an IntentResponse).
func decisionDoc(rec *query.DecisionRecord) map[string]any {
	doc := map[string]any{"decision_id": rec.DecisionID, "evaluated_at": rec.EvaluatedAt,
		"outcome": rec.Outcome, "constraint_evaluations": evaluationsDoc(rec.Evaluations)}
	if rec.Explanation != "" {
		doc["explanation"] = rec.Explanation
	}
	return doc
}

func evaluationsDoc(evals []aql.Evaluation) []any {
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

// candidateDoc is a candidate as an IntentResponse lists it; rank 0 is
// left out (streams that do not rank).
func candidateDoc(c *query.Candidate) map[string]any {
	m := map[string]any{"candidate_id": c.CandidateID, "payload": c.Payload, "decision_record": decisionDoc(&c.Record)}
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
