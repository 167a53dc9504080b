package query

import (
	"context"
	"strings"
	"testing"
)

// TestCursorSurvivesReserialization: a client that re-serializes an
// intent (its JSON library writes 1.0 as 1, 1e2 as 100) sends what the
// issuer signed, and the cursor issued for it still opens.
func TestCursorSurvivesReserialization(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		putAll(t, s, ctx, shoeCandidate("c"+string(rune('a'+i)), "0.5", `"1.00"`, ""))
	}
	floor := `,"quality_floor":{"performance_score":%s,"latency_p99_ms":%s}`
	written := shoeIntent("full_set", strings.Replace(strings.Replace(floor, "%s", "0.50", 1), "%s", "1.0e3", 1))
	resent := shoeIntent("full_set", strings.Replace(strings.Replace(floor, "%s", "0.5", 1), "%s", "1000", 1))
	first := resolve(t, s, written, &Options{PageSize: 2})
	if first.NextCursor == "" || len(first.Candidates) != 2 {
		t.Fatalf("first page: %d candidates, cursor %q", len(first.Candidates), first.NextCursor)
	}
	next, err := Resolve(ctx, s, parseIntent(t, []byte(resent)), &Options{Signer: testSigner(), At: at, PageSize: 2, Cursor: first.NextCursor})
	if err != nil {
		t.Fatalf("the cursor of %s refused for %s: %v", written, resent, err)
	}
	if len(next.Candidates) != 2 || next.Candidates[0].CandidateID != "cc" {
		t.Errorf("second page: %+v", next.Candidates)
	}
}
