package query

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/store"
)

// TestMatcherAgreesWithResolve: judging each document with a Matcher
// gives exactly what Resolve decides for it: accepted or not, the
// outcome and explanation of a rejection (constraint, quality floor,
// projection) and the leaf evaluations.
func TestMatcherAgreesWithResolve(t *testing.T) {
	s := openStore(t)
	putAll(t, s, context.Background(),
		shoeCandidate("ok", "0.9", `"1.00"`, ""),
		`{"id":"weak","score":0.4,"quality":{"performance_score":0.3,"conformance_level":"L2","latency_p99_ms":90},`+
			`"record":{"name":"weak","category":"shoes","price":{"amount":"1.00","currency":"EUR"}}}`,
		`{"id":"no-quality","record":{"name":"nq","category":"shoes","price":{"amount":"1.00","currency":"EUR"}}}`,
		`{"id":"no-price","quality":{"performance_score":0.9},"record":{"name":"np","category":"shoes"}}`,
		shoeCandidate("boots", "0.9", `"1.00"`, `,"kind":"boots"`),
		`{"id":"socks","record":{"name":"s","category":"socks","price":{"amount":"1.00","currency":"EUR"}}}`,
	)
	intent := shoeIntent("full_set", `,"quality_floor":{"performance_score":0.5}`)
	resp := resolve(t, s, intent, &Options{PageSize: 100})
	want := map[string]string{}
	for _, c := range resp.Candidates {
		want[c.CandidateID] = "accept " + evalsText(c.Record)
	}
	for _, r := range resp.Rejected {
		want[r.CandidateID] = r.Record.Outcome + " " + r.Record.Explanation + " " + evalsText(r.Record)
	}
	if len(want) != 6 || len(resp.Candidates) != 2 {
		t.Fatalf("resolve judged %d documents, accepted %d: %v", len(want), len(resp.Candidates), want)
	}
	m := NewMatcher(parseIntent(t, []byte(intent)), time.Time{})
	got := map[string]string{}
	for doc, err := range s.Scan(context.Background(), "") {
		if err != nil {
			t.Fatal(err)
		}
		c, rej, err := m.Match(doc)
		switch {
		case err != nil:
			t.Fatal(err)
		case (c == nil) == (rej == nil):
			t.Fatalf("%s: want exactly one of candidate and rejection", doc.NaturalKey)
		case c != nil:
			got[c.CandidateID] = "accept " + evalsText(c.Record)
		default:
			got[rej.CandidateID] = rej.Record.Outcome + " " + rej.Record.Explanation + " " + evalsText(rej.Record)
		}
	}
	for _, id := range sortedKeys(want) {
		if got[id] != want[id] {
			t.Errorf("%s: matcher %q, resolve %q", id, got[id], want[id])
		}
	}
	if !strings.HasPrefix(got["weak"], "below_quality_floor") || !strings.HasPrefix(got["no-price"], "reject projection failure") {
		t.Errorf("the cases are not the ones meant: %v", got)
	}
}

// TestPrincipalOption: Options.Principal reads as the authenticated
// caller when the issuer is not verified: public and its own documents,
// never another tenant's, and no count of them.
func TestPrincipalOption(t *testing.T) {
	s := openStore(t)
	putAll(t, s, store.WithPrincipal(context.Background(), "did:web:a.example"), shoeCandidate("a-private", "0.9", `"1.00"`, ""))
	putAll(t, s, store.WithPrincipal(context.Background(), "did:web:b.example"), shoeCandidate("b-private", "0.9", `"1.00"`, ""),
		`{"id":"b-reject","record":{"category":"shoes"}}`)
	putAll(t, s, context.Background(), shoeCandidate("public", "0.5", `"1.00"`, ""))
	for principal, want := range map[string]string{
		"":                  "[public] rejected 0 evaluated 1",
		"did:web:a.example": "[a-private public] rejected 0 evaluated 2",
		"did:web:b.example": "[b-private public] rejected 1 evaluated 3",
	} {
		r := resolve(t, s, shoeIntent("ranked_set", ""), &Options{Principal: principal})
		var ids []string
		for _, c := range r.Candidates {
			ids = append(ids, c.CandidateID)
		}
		if got := fmt.Sprintf("%v rejected %d evaluated %d", ids, r.RejectedTotal, r.Evaluated); got != want {
			t.Errorf("principal %q: %s, want %s", principal, got, want)
		}
	}
}

func evalsText(rec DecisionRecord) string {
	var b strings.Builder
	for _, e := range rec.Evaluations {
		fmt.Fprintf(&b, "%s %s %v %s %s;", e.Path, e.Operator, e.Passed, e.CandidateValue, e.Reason)
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestExactCandidatesEvaluatedOnce: the candidates of an exact plan all
// satisfy the constraints, so each is evaluated once, for its record, and
// never matched first; a lossy plan's candidates are matched and only
// those that match are evaluated.
func TestExactCandidatesEvaluatedOnce(t *testing.T) {
	var docs []string
	for i := range 6 {
		docs = append(docs, fmt.Sprintf(`{"id":"c%d","score":0.%d,"record":{"name":"n%d","category":"%s","price":1}}`,
			i, i, i, []string{"shoes", "hats"}[i%2]))
	}
	s, ix := openIndexed(t, docs...)
	for _, tc := range []struct {
		name, constraint string
		matches, evals   int
	}{
		{"exact", `{"path":"/category","operator":"eq","value":"shoes"}`, 0, 3},
		{"lossy", `{"path":"/name","operator":"ne","value":"n5"}`, 6, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			intent := strings.Replace(shoeIntent("ranked_set", ""), `{"path":"/category","operator":"eq","value":"shoes"}`, tc.constraint, 1)
			tally := &walkTally{}
			resolve(t, s, intent, &Options{Index: ix, MaxRejected: -1, walks: tally})
			if tally.matches != tc.matches || tally.evals != tc.evals {
				t.Errorf("%d matches and %d evaluations, want %d and %d", tally.matches, tally.evals, tc.matches, tc.evals)
			}
		})
	}
}

// TestFullScanJudgesOnBytes: a full scan that lists no rejections judges
// each document on its bytes before the store builds it, and a document
// that cannot hold the wanted string is not even matched; the answer is
// the one the scan gives when it lists every rejection (and so judges
// every document in full).
func TestFullScanJudgesOnBytes(t *testing.T) {
	var docs []string
	for i := range 6 {
		docs = append(docs, fmt.Sprintf(`{"id":"c%d","score":0.%d,"record":{"name":"n%d","category":"%s","price":1}}`,
			i, i, i, []string{"shoes", "hats", "boots"}[i%3]))
	}
	s, _ := openIndexed(t, docs...)
	intent := shoeIntent("ranked_set", "")
	tally := &walkTally{}
	lean := resolve(t, s, intent, &Options{MaxRejected: -1, walks: tally})
	if tally.matches != 2 || tally.evals != 2 {
		t.Errorf("%d matches and %d evaluations, want 2 and 2: the documents without \"shoes\" are not matched", tally.matches, tally.evals)
	}
	full := resolve(t, s, intent, &Options{MaxRejected: 1 << 20})
	if len(full.Rejected) != 4 {
		t.Fatalf("%d rejections listed, want 4", len(full.Rejected))
	}
	if lean.RejectedTotal != full.RejectedTotal || lean.Evaluated != full.Evaluated {
		t.Errorf("rejected %d of %d evaluated, want %d of %d", lean.RejectedTotal, lean.Evaluated, full.RejectedTotal, full.Evaluated)
	}
	full.Rejected = nil
	if a, b := responseJSON(lean), responseJSON(full); a != b {
		t.Errorf("the scan judging on bytes answers\n%s\nwhere the full judgment answers\n%s", a, b)
	}
}

// TestMemoFor: judging reads documents' roots through the memo only
// for sets a quarter of its size or smaller.
func TestMemoFor(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want bool
	}{{0, true}, {1, true}, {memoMaxDocs, true}, {memoMaxDocs + 1, false}, {1 << 20, false}} {
		if got := memoFor(tc.n) != nil; got != tc.want {
			t.Errorf("memoFor(%d): memo %v, want %v", tc.n, got, tc.want)
		}
	}
}
