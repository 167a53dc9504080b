package query

import (
	"slices"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// Response is a resolved IntentResponse (oap-intent-response.schema.json).
// Document gives its JSON form; every field of that form is in the schema.
type Response struct {
	ResponseID   string
	IntentID     string
	ResolverDID  string
	ResolverRole string
	EvaluatedAt  string
	Candidates   []Candidate
	Rejected     []Rejection
	NextCursor   string // full_set: the next page, "" on the last
	Signature    map[string]any

	// Not serialized: what the rejected list and the plan looked like.
	RejectedTotal int // every rejected candidate, listed or not
	Evaluated     int // documents evaluated exactly (an exact plan's page: the page and the listed rejections only)
	signed        map[string]any
	wire          []byte // the RFC 8785 bytes of signed, encoded as it was signed
}

// Candidate is one returned candidate.
type Candidate struct {
	CandidateID string
	Rank        int
	Score       canon.Number // "" when the candidate has no score
	Payload     map[string]any
	Record      DecisionRecord
	OverBudget  bool

	cost *canon.Cost // nil when the candidate has none
	num  uint32      // document number: the last tie-break
}

// Cost returns the candidate's cost signal, which ranked it but is not
// part of the response document, and false when it has none.
func (c *Candidate) Cost() (canon.Cost, bool) {
	if c.cost == nil {
		return canon.Cost{}, false
	}
	return *c.cost, true
}

// Rejection is a candidate evaluated and rejected, with the reason in its
// record.
type Rejection struct {
	CandidateID string
	Record      DecisionRecord

	num uint32 // document number: the full scan's order
}

// DecisionRecord is an AQL Decision Record (oap-aql-decision.schema.json).
type DecisionRecord struct {
	DecisionID  string
	EvaluatedAt string
	Outcome     string // accept, reject, over_budget, below_quality_floor
	Evaluations []aql.Evaluation
	Explanation string
}

// Document returns the signed response as a decoded JSON document (the
// canon value model), ready for canon.AppendValue.
func (r *Response) Document() map[string]any { return r.signed }

// unsigned builds the response document without its signature.
func (r *Response) unsigned() map[string]any {
	doc := map[string]any{
		"response_id":   r.ResponseID,
		"intent_id":     r.IntentID,
		"resolver_did":  r.ResolverDID,
		"resolver_role": r.ResolverRole,
		"evaluated_at":  r.EvaluatedAt,
		"candidates":    r.candidatesDoc(),
	}
	if len(r.Rejected) > 0 {
		rej := make([]any, len(r.Rejected))
		for i, x := range r.Rejected {
			rej[i] = map[string]any{"candidate_id": x.CandidateID, "decision_record": x.Record.document()}
		}
		doc["rejected"] = rej
	}
	if r.NextCursor != "" {
		doc["next_cursor"] = r.NextCursor
	}
	return doc
}

func (r *Response) candidatesDoc() []any {
	out := make([]any, len(r.Candidates))
	for i, c := range r.Candidates {
		m := map[string]any{"candidate_id": c.CandidateID, "rank": canon.Number(itoa(c.Rank)),
			"payload": c.Payload, "decision_record": c.Record.document()}
		if c.Score != "" {
			m["score"] = c.Score
		}
		if c.OverBudget {
			m["over_budget"] = true
		}
		out[i] = m
	}
	return out
}

func (d *DecisionRecord) document() map[string]any {
	evals := make([]any, len(d.Evaluations))
	for i, e := range d.Evaluations {
		m := map[string]any{"path": e.Path, "operator": e.Operator, "value": e.Value, "passed": e.Passed}
		if e.HasCandidateValue {
			m["candidate_value"] = e.CandidateValue
		}
		if e.Reason != "" { // a passed leaf has one under a failed not
			m["reason"] = e.Reason
		}
		evals[i] = m
	}
	doc := map[string]any{"decision_id": d.DecisionID, "evaluated_at": d.EvaluatedAt,
		"outcome": d.Outcome, "constraint_evaluations": evals}
	if d.Explanation != "" {
		doc["explanation"] = d.Explanation
	}
	return doc
}

// MarshalJSON returns the signed response's RFC 8785 bytes, the ones its
// signature was computed over plus the signature member, without encoding
// the response again. The bytes are shared by every call: do not modify
// them.
func (r *Response) MarshalJSON() ([]byte, error) {
	if r.wire == nil {
		return canon.AppendValue(nil, r.signed), nil
	}
	return slices.Clip(r.wire), nil
}
