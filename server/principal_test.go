package server

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/aqlstore/aqlstore/server/client"
)

// TestBearerQueryReadsAsTenant: a query sent with a bearer token reads as
// the token's tenant (public documents and its own), streamed or not; it
// never sees, names or counts another tenant's documents; anonymous
// callers see public documents only.
func TestBearerQueryReadsAsTenant(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	ts.putPublic(shoe("public", 1))
	put := func(token, body string) {
		t.Helper()
		if _, err := ts.client(token).Put(ctx, []byte(body), client.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	put(tokenA, shoe("a-secret", 2))
	put(tokenA, `{"offer_id": "a-rejected", "category": "running_shoes", "inventory": {"available": 0}}`)
	query := intent("commercial", `{"all_of": [{"path": "/category", "operator": "eq", "value": "running_shoes"},
		{"path": "/inventory/available", "operator": "gt", "value": 0}]}`, `"resolution_policy": "ranked_set",`)
	before := map[string]string{}
	for _, tok := range []string{tokenA, tokenB, ""} {
		before[tok] = answerOf(t, ts, tok, query)
	}
	if want := "[a-secret public] rejected [a-rejected] evaluated 3"; before[tokenA] != want {
		t.Fatalf("tenant A: %s, want %s", before[tokenA], want)
	}
	if want := "[public] rejected [] evaluated 1"; before[tokenB] != want || before[""] != want {
		t.Fatalf("tenant B: %s, anonymous: %s, want %s", before[tokenB], before[""], want)
	}
	// B's documents change nothing A or an anonymous caller gets, and the
	// other way round.
	put(tokenB, shoe("b-secret", 3))
	put(tokenB, `{"offer_id": "b-rejected", "category": "running_shoes", "inventory": {"available": 0}}`)
	if got := answerOf(t, ts, tokenA, query); got != before[tokenA] {
		t.Fatalf("A's answer changed when B stored documents: %s → %s", before[tokenA], got)
	}
	if got := answerOf(t, ts, "", query); got != before[""] {
		t.Fatalf("the anonymous answer changed: %s → %s", before[""], got)
	}
	if got, want := answerOf(t, ts, tokenB, query), "[b-secret public] rejected [b-rejected] evaluated 3"; got != want {
		t.Fatalf("tenant B: %s, want %s", got, want)
	}
	// Streamed answers read as the caller too: full_set as evaluated, and ranked.
	for _, policy := range []string{"full_set", "ranked_set"} {
		body := bytes.Replace(query, []byte(`"ranked_set"`), []byte(`"`+policy+`"`), 1)
		if got := streamedIDs(t, ts, tokenA, body); got != "[a-secret public]" {
			t.Fatalf("%s stream as A: %s", policy, got)
		}
	}
}

// answerOf posts intent with token and summarizes the signed answer.
func answerOf(t *testing.T, ts *testServer, token string, intent []byte) string {
	t.Helper()
	body, err := ts.client(token).Intent(context.Background(), intent)
	if err != nil {
		t.Fatal(err)
	}
	ts.verified(body)
	r := decode(t, body)
	ids := func(member string) []string {
		out := []string{}
		for _, c := range r[member].([]any) {
			out = append(out, c.(map[string]any)["candidate_id"].(string))
		}
		sort.Strings(out)
		return out
	}
	if r["rejected"] == nil {
		r["rejected"] = []any{}
	}
	return fmt.Sprintf("%v rejected %v evaluated %d", ids("candidates"), ids("rejected"), countEvaluations(r))
}

// countEvaluations counts the decision records an answer holds.
func countEvaluations(r map[string]any) int {
	n := 0
	for _, m := range []string{"candidates", "rejected"} {
		l, _ := r[m].([]any)
		n += len(l)
	}
	return n
}

// streamedIDs streams intent with token and returns the candidate ids.
func streamedIDs(t *testing.T, ts *testServer, token string, intent []byte) string {
	t.Helper()
	s, err := ts.client(token).StreamIntent(context.Background(), intent)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []string
	for {
		ev := nextEvent(t, s)
		ts.verified(ev.Data)
		if ev.Name == "end" {
			break
		}
		c, _ := decode(t, ev.Data)["candidate"].(map[string]any)
		ids = append(ids, c["candidate_id"].(string))
	}
	sort.Strings(ids)
	return fmt.Sprint(ids)
}
