package query

import (
	"fmt"
	"slices"
	"strconv"

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
	RejectedTotal int    // every rejected candidate, listed or not
	Evaluated     int    // documents evaluated exactly (an exact plan's page: the page and the listed rejections only)
	wire          []byte // the RFC 8785 bytes of the signed response, as they were signed
}

// Candidate is one returned candidate.
type Candidate struct {
	CandidateID string
	Rank        int
	Score       canon.Number   // "" when the candidate has no score
	Payload     canon.RawValue // the projection's RFC 8785 bytes, copied from the document (PayloadValue decodes it)
	Record      DecisionRecord
	OverBudget  bool

	cost    *canon.Cost // nil when the candidate has none
	num     uint32      // document number: the last tie-break
	rankKey []byte      // its rank key, once rankOrder has sorted by keys (rank.go)
}

// PayloadValue decodes Payload (the canon value model); an empty
// Payload is an empty object.
func (c *Candidate) PayloadValue() (map[string]any, error) {
	if len(c.Payload) == 0 {
		return map[string]any{}, nil
	}
	v, err := canon.DecodeCanonical(c.Payload)
	if err != nil {
		return nil, fmt.Errorf("query: payload: %w", err)
	}
	m, _ := v.(map[string]any)
	return m, nil
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
// canon value model), ready for canon.AppendValue. It is decoded from the
// bytes the response was signed and is sent as; each call decodes anew.
func (r *Response) Document() map[string]any {
	if r.wire == nil {
		return nil // not made by Resolve
	}
	v, err := canon.DecodeCanonical(r.wire)
	if err != nil {
		return nil // the resolver wrote these bytes: they decode
	}
	doc, _ := v.(map[string]any)
	return doc
}

// appendUnsigned appends the RFC 8785 form of the response without its
// signature, written straight from the response's fields: member names
// in their sorted order, every value through the one canonical writer.
// No map per candidate, record or evaluation is built.
func (r *Response) appendUnsigned(dst []byte) ([]byte, error) {
	w := objWriter{buf: append(dst, '{')}
	w.name("candidates")
	w.buf = append(w.buf, '[')
	for i := range r.Candidates {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		at := len(w.buf)
		w.candidate(&r.Candidates[i], true)
		if i == 0 && len(r.Candidates) > 1 {
			// Candidates of one answer are written alike: room for the
			// rest at the first one's size, so that a large answer (10,000
			// candidates: megabytes) is not grown and copied a dozen times.
			w.buf = slices.Grow(w.buf, (len(w.buf)-at+1)*(len(r.Candidates)-1)*9/8+4096)
		}
	}
	w.buf = append(w.buf, ']')
	w.text("evaluated_at", r.EvaluatedAt)
	w.text("intent_id", r.IntentID)
	if r.NextCursor != "" {
		w.text("next_cursor", r.NextCursor)
	}
	if len(r.Rejected) > 0 {
		w.name("rejected")
		w.buf = append(w.buf, '[')
		for i := range r.Rejected {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			x := &r.Rejected[i]
			o := objWriter{buf: append(w.buf, '{'), err: w.err}
			o.text("candidate_id", x.CandidateID)
			o.name("decision_record")
			o.record(&x.Record)
			w.buf, w.err = append(o.buf, '}'), o.err
		}
		w.buf = append(w.buf, ']')
	}
	w.text("resolver_did", r.ResolverDID)
	w.text("resolver_role", r.ResolverRole)
	w.text("response_id", r.ResponseID)
	if w.err != nil {
		return dst, w.err
	}
	return append(w.buf, '}'), nil
}

// objWriter writes the members of one object, whose names the caller
// gives in RFC 8785 order (all are ASCII, so byte order); the first error
// sticks.
type objWriter struct {
	buf []byte
	n   int // members written
	err error
}

// name writes the separator and the name of the next member.
func (w *objWriter) name(name string) {
	if w.n > 0 {
		w.buf = append(w.buf, ',')
	}
	w.n++
	w.buf = append(append(append(w.buf, '"'), name...), '"', ':')
}

// member writes a member and its value.
func (w *objWriter) member(name string, v any) {
	w.name(name)
	w.value(v)
}

// text writes a member whose value is a string.
func (w *objWriter) text(name, v string) {
	w.name(name)
	if w.err == nil {
		w.buf, w.err = canon.AppendString(w.buf, v)
	}
}

// value writes v through canon.AppendCanonical.
func (w *objWriter) value(v any) {
	if w.err != nil {
		return
	}
	w.buf, w.err = canon.AppendCanonical(w.buf, v)
}

// AppendCandidate appends the RFC 8785 form of c as an IntentResponse
// lists it, its decision record included, as Resolve writes it; a rank of
// 0 (a candidate a stream or a Matcher did not rank) is left out. Errors
// wrap canon.ErrNotCanonicalizable, and dst is then returned unchanged.
func AppendCandidate(dst []byte, c *Candidate) ([]byte, error) {
	w := objWriter{buf: dst}
	w.candidate(c, c.Rank > 0)
	if w.err != nil {
		return dst, w.err
	}
	return w.buf, nil
}

// candidate writes c as an IntentResponse lists it; ranked false leaves
// the rank out (a stream that does not rank).
func (w *objWriter) candidate(c *Candidate, ranked bool) {
	o := objWriter{buf: append(w.buf, '{'), err: w.err}
	o.text("candidate_id", c.CandidateID)
	o.name("decision_record")
	o.record(&c.Record)
	if c.OverBudget {
		o.member("over_budget", true)
	}
	o.name("payload")
	if len(c.Payload) == 0 {
		o.buf = append(o.buf, "{}"...)
	} else {
		o.buf = append(o.buf, c.Payload...)
	}
	if ranked {
		o.name("rank")
		o.buf = strconv.AppendInt(o.buf, int64(c.Rank), 10)
	}
	if c.Score != "" {
		o.member("score", c.Score)
	}
	w.buf, w.err = append(o.buf, '}'), o.err
}

// record writes a decision record (oap-aql-decision.schema.json).
func (w *objWriter) record(d *DecisionRecord) {
	o := objWriter{buf: append(w.buf, '{'), err: w.err}
	o.name("constraint_evaluations")
	o.buf = append(o.buf, '[')
	for i := range d.Evaluations {
		if i > 0 {
			o.buf = append(o.buf, ',')
		}
		o.evaluation(&d.Evaluations[i])
	}
	o.buf = append(o.buf, ']')
	o.text("decision_id", d.DecisionID)
	o.text("evaluated_at", d.EvaluatedAt)
	if d.Explanation != "" {
		o.text("explanation", d.Explanation)
	}
	o.text("outcome", d.Outcome)
	w.buf, w.err = append(o.buf, '}'), o.err
}

// evaluation writes one leaf's evaluation.
func (w *objWriter) evaluation(e *aql.Evaluation) {
	o := objWriter{buf: append(w.buf, '{'), err: w.err}
	if e.HasCandidateValue {
		o.name("candidate_value")
		if len(e.CandidateValue) == 0 {
			o.buf = append(o.buf, "null"...) // built by hand without bytes
		} else {
			o.buf = append(o.buf, e.CandidateValue...) // already RFC 8785
		}
	}
	o.text("operator", e.Operator)
	o.name("passed")
	o.buf = strconv.AppendBool(o.buf, e.Passed)
	o.text("path", e.Path)
	if e.Reason != "" { // a passed leaf has one under a failed not
		o.text("reason", e.Reason)
	}
	o.member("value", e.Value)
	w.buf, w.err = append(o.buf, '}'), o.err
}

// MarshalJSON returns the signed response's RFC 8785 bytes, the ones its
// signature was computed over plus the signature member, without encoding
// the response again. The bytes are shared by every call: do not modify
// them. A Response Resolve did not make (built by hand) has no such
// bytes and is written as null, as its empty document was.
func (r *Response) MarshalJSON() ([]byte, error) {
	if r.wire == nil {
		return []byte("null"), nil
	}
	return slices.Clip(r.wire), nil
}
