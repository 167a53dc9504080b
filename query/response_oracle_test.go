package query

import (
	"context"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// The response document as it was built before responses were written
// straight to bytes: maps, encoded by the canonical writer. It is the
// oracle appendUnsigned must agree with byte for byte, and the form the
// differential tests compare.

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

// checkOracle holds r's signed bytes to the old path's: the RFC 8785
// form of the map document with its signature member, byte for byte.
// Ed25519 signatures are deterministic, so the same bytes signed give
// the same signature.
func checkOracle(t interface {
	Helper()
	Fatalf(string, ...any)
}, r *Response) {
	t.Helper()
	doc := r.unsigned()
	doc["signature"] = r.Signature
	want, err := canon.AppendCanonical(nil, doc)
	if err != nil {
		t.Fatalf("the oracle cannot write the response: %v", err)
	}
	if got, _ := r.MarshalJSON(); string(got) != string(want) {
		t.Fatalf("the response's bytes differ from the map oracle's\ngot:  %s\nwant: %s", got, want)
	}
}

// BenchmarkWriteResponse writes and signs the response of a point query
// listing the default 100 rejections (eq_0.01pct on the bench corpus)
// both ways, side by side: maps encoded by the writer (the old path), and
// straight to bytes.
func BenchmarkWriteResponse(b *testing.B) {
	s, ix := benchCorpus(b)
	var in *aql.Intent
	for _, q := range benchQueries(benchDocs()) {
		if q.name == "eq_0.01pct" {
			in = benchIntent(b, q.constraints)
		}
	}
	signer := testSigner()
	resp, err := Resolve(context.Background(), s, in, &Options{Signer: signer, At: at, Index: ix})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d candidates, %d rejections listed, %d bytes", len(resp.Candidates), len(resp.Rejected), len(resp.wire))
	b.Run("maps", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := signer.AppendSigned(nil, resp.unsigned()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf := unsignedBufs.Get().(*[]byte)
			unsigned, err := resp.appendUnsigned((*buf)[:0])
			if err != nil {
				b.Fatal(err)
			}
			*buf = unsigned
			signer.AppendSignedCanonical(nil, unsigned)
			putUnsignedBuf(buf)
		}
	})
}
