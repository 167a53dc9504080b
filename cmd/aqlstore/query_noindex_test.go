package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestQueryNoIndexSameResponse: `query` prints the same response with and
// without --no-index, rejected candidates included (RFC 0020 A.3, R3),
// but for the response and decision ids, the times and the signature:
// for the OAP example intents over the OAP example candidates (when the
// public vectors are present), and for random intents over a generated
// corpus.
func TestQueryNoIndexSameResponse(t *testing.T) {
	t.Run("oap examples", func(t *testing.T) {
		ex := filepath.Join("..", "..", "..", "shared", "vectors", "oap", "examples", "aql")
		intents, _ := filepath.Glob(filepath.Join(ex, "*-intent.json"))
		if len(intents) == 0 {
			t.Skipf("public vectors not present (%s)", ex)
		}
		dir := filepath.Join(t.TempDir(), "store")
		if code, _, errs := run(t, dir, "", "put", filepath.Join(ex, "candidates.json")); code != 0 {
			t.Fatalf("put: %s", errs)
		}
		rejected := 0
		for _, f := range intents {
			_, rejs := sameResponse(t, dir, f, "--at", "2026-05-04T00:00:00Z")
			rejected += rejs
		}
		if rejected == 0 {
			t.Error("no example intent rejected a candidate: the test compares no rejections")
		}
	})
	t.Run("random intents", func(t *testing.T) {
		tmp := t.TempDir()
		dir := filepath.Join(tmp, "store")
		_, corpus, _ := run(t, dir, "", "gen", "--kind", "manifest", "-n", "150", "--seed", "3")
		if code, _, errs := run(t, dir, corpus, "put", "-"); code != 0 {
			t.Fatalf("put: %s", errs)
		}
		rng := rand.New(rand.NewPCG(16, 1))
		accepting, rejecting := 0, 0
		for i := range 20 {
			f := writeFile(t, tmp, fmt.Sprintf("intent-%d.json", i), randomIntent(rng))
			flags := []string{"--at", "2026-05-04T00:00:00Z",
				"--max-rejected", fmt.Sprint([]int{1, 3, 100}[rng.IntN(3)]), "--page-size", fmt.Sprint(1 + rng.IntN(20))}
			cands, rejs := sameResponse(t, dir, f, flags...)
			accepting += min(cands, 1)
			rejecting += min(rejs, 1)
		}
		t.Logf("20 random intents: %d with candidates, %d listing rejections", accepting, rejecting)
		if accepting == 0 || rejecting == 0 {
			t.Error("the random intents never accept or never reject: the test compares too little")
		}
	})
}

// sameResponse runs `query` on intent with and without --no-index, fails
// t when the responses or the counts printed differ, and returns how many
// candidates and rejections the response lists.
func sameResponse(t *testing.T, dir, intent string, flags ...string) (accepted, rejected int) {
	t.Helper()
	args := append([]string{"query"}, flags...)
	code, out, errs := run(t, dir, "", append(args, intent)...)
	codeNo, outNo, errsNo := run(t, dir, "", append(args, "--no-index", intent)...)
	if code != codeNo {
		t.Fatalf("%s: exit %d with the index, %d without\n%s\n%s", intent, code, codeNo, errs, errsNo)
	}
	a, b := strippedResponse(t, out), strippedResponse(t, outNo)
	if a != b {
		t.Fatalf("%s: responses differ\nindex:    %s\nno index: %s", intent, a, b)
	}
	if count, countNo := counted(errs), counted(errsNo); count != countNo {
		t.Fatalf("%s: the index prints %q, the full scan %q", intent, count, countNo)
	}
	var resp struct{ Candidates, Rejected []any }
	_ = json.Unmarshal([]byte(out), &resp)
	return len(resp.Candidates), len(resp.Rejected)
}

// strippedResponse is the response printed, without what differs between
// two resolutions: response and decision ids, times and the signature.
func strippedResponse(t *testing.T, out string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("query printed no JSON document: %v\n%s", err, out)
	}
	b, _ := json.Marshal(stripIDs(v))
	return string(b)
}

func stripIDs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			switch k {
			case "response_id", "decision_id", "evaluated_at", "signature":
				delete(v, k)
			default:
				v[k] = stripIDs(x)
			}
		}
	case []any:
		for i, x := range v {
			v[i] = stripIDs(x)
		}
	}
	return v
}

// counted is the "N candidates, M rejected" of query's summary line (the
// number of documents evaluated is the plan's business).
// Path warnings come from the index's dictionary, so only the indexed
// query prints them; they are left out.
func counted(stderr string) string {
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(l, "warning: ") {
			lines = append(lines, l)
		}
	}
	stderr = strings.Join(lines, "\n")
	s, _, _ := strings.Cut(stderr, ", ")
	rest, _, _ := strings.Cut(strings.TrimPrefix(stderr, s+", "), ",")
	return s + ", " + rest
}

// randomIntent is a discovery intent over the fields gen writes into
// manifests: a random tree of leaves, a random projection and policy.
func randomIntent(rng *rand.Rand) string {
	include := [][]string{{"/"}, {"/tool/name", "/risk_class"}, {"/pricing/models/*/tiers"}, {"/trust/*", "/sla/regions"}}[rng.IntN(4)]
	inc, _ := json.Marshal(include)
	policy := []string{"ranked_set", "full_set", "single_best"}[rng.IntN(3)]
	return `{"intent_id":"urn:oap:intent:cli-random","issuer_did":"did:web:agent.example","category":"discovery",` +
		`"constraints":` + randomTree(rng, 0) + `,"projection":{"include":` + string(inc) + `},` +
		`"validity":{"from":"2026-05-03T00:00:00Z","to":"2026-08-03T00:00:00Z"},` +
		`"resolution_policy":"` + policy + `","signature":{"alg":"EdDSA","value":"unsigned"}}`
}

func randomTree(rng *rand.Rand, depth int) string {
	if depth >= 2 || rng.IntN(3) == 0 {
		return randomLeaf(rng)
	}
	switch rng.IntN(3) {
	case 0:
		return `{"not":` + randomTree(rng, depth+1) + `}`
	case 1:
		return `{"any_of":[` + randomTree(rng, depth+1) + `,` + randomTree(rng, depth+1) + `]}`
	}
	return `{"all_of":[` + randomTree(rng, depth+1) + `,` + randomTree(rng, depth+1) + `]}`
}

var cliLeaves = []string{
	`{"path":"/risk_class","operator":"eq","value":"high"}`,
	`{"path":"/risk_class","operator":"in","value":["limited","minimal"]}`,
	`{"path":"/trust/trust_score","operator":"gte","value":0.5}`,
	`{"path":"/trust/gdpr_compliant","operator":"eq","value":true}`,
	`{"path":"/tool/categories/*","operator":"eq","value":"logistics"}`,
	`{"path":"/jurisdictions","operator":"contains","value":"DE"}`,
	`{"path":"/pricing/models/*/amount","operator":"lt","value":"300.00"}`,
	`{"path":"/pricing/models/*/tiers","operator":"exists","value":true}`,
	`{"path":"/tool/name","operator":"matches","value":"^(Open|Keen) "}`,
	`{"path":"/actions/*/side_effects","operator":"ne","value":"read"}`,
	`{"path":"/conformance/last_attested_at","operator":"after","value":"2025-06-01T00:00:00Z"}`,
	`{"path":"/sla/latency_p99_ms","operator":"lte","value":1000}`,
}

func randomLeaf(rng *rand.Rand) string { return cliLeaves[rng.IntN(len(cliLeaves))] }
