package query

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/store"
)

// The boundary tests of Resolve's caps on one response. These are caps,
// not refusals: the answer is cut at the limit and says so (a next_cursor,
// a note in the last rejected record), so nothing is silently lost.

// shoeStore holds n shoe candidates (c000, c001, ...) and n boots offers,
// which the commercial shoe intent rejects.
func shoeStore(t *testing.T, shoes, boots int) *store.Store {
	t.Helper()
	s := openStore(t)
	ctx := context.Background()
	for i := range shoes {
		putAll(t, s, ctx, shoeCandidate(fmt.Sprintf("c%03d", i), "0.5", `"1.00"`, ""))
	}
	for i := range boots {
		putAll(t, s, ctx, fmt.Sprintf(`{"offer_id":"o%03d","category":"boots"}`, i))
	}
	return s
}

func TestLimitResultsPerPage(t *testing.T) {
	for _, size := range []int{0, 3} { // 0: the default
		max := size
		if max == 0 {
			max = 100
		}
		// Exactly one page of results: no cursor.
		s := shoeStore(t, max, 0)
		resp := resolve(t, s, shoeIntent("full_set", ""), &Options{PageSize: size})
		if len(resp.Candidates) != max || resp.NextCursor != "" {
			t.Fatalf("%d results with page size %d: %d on the page, cursor %q; want all, no cursor",
				max, max, len(resp.Candidates), resp.NextCursor)
		}
		// One more: a full page and a cursor to the rest.
		putAll(t, s, context.Background(), shoeCandidate(fmt.Sprintf("c%03d", max), "0.5", `"1.00"`, ""))
		resp = resolve(t, s, shoeIntent("full_set", ""), &Options{PageSize: size})
		if len(resp.Candidates) != max || resp.NextCursor == "" {
			t.Fatalf("%d results with page size %d: %d on the page, cursor %q; want %d and a cursor",
				max+1, max, len(resp.Candidates), resp.NextCursor, max)
		}
		rest := resolve(t, s, shoeIntent("full_set", ""), &Options{PageSize: size, Cursor: resp.NextCursor})
		if len(rest.Candidates) != 1 || rest.NextCursor != "" || rest.Candidates[0].CandidateID != fmt.Sprintf("c%03d", max) {
			t.Fatalf("second page: %d candidates, cursor %q", len(rest.Candidates), rest.NextCursor)
		}
	}
}

func TestLimitRejectedRecords(t *testing.T) {
	intent := strings.Replace(shoeIntent("ranked_set", ""), `"discovery"`, `"commercial"`, 1)
	for _, limit := range []int{0, 3} { // 0: the default
		max := limit
		if max == 0 {
			max = DefaultMaxRejected
		}
		// Exactly at the cap: every rejection listed, no note.
		s := shoeStore(t, 0, max)
		resp := resolve(t, s, intent, &Options{MaxRejected: limit})
		if len(resp.Rejected) != max || resp.RejectedTotal != max {
			t.Fatalf("%d rejected with cap %d: %d listed, total %d", max, max, len(resp.Rejected), resp.RejectedTotal)
		}
		if last := resp.Rejected[max-1].Record.Explanation; strings.Contains(last, "MaxRejected") {
			t.Fatalf("the cap is noted though nothing was cut: %q", last)
		}
		// One past: the cap listed, the total given, the cut named.
		putAll(t, s, context.Background(), fmt.Sprintf(`{"offer_id":"o%03d","category":"boots"}`, max))
		resp = resolve(t, s, intent, &Options{MaxRejected: limit})
		if len(resp.Rejected) != max || resp.RejectedTotal != max+1 {
			t.Fatalf("%d rejected with cap %d: %d listed, total %d", max+1, max, len(resp.Rejected), resp.RejectedTotal)
		}
		want := strconv.Itoa(max+1) + " rejected candidates in all, " + strconv.Itoa(max) + " listed (MaxRejected cap " + strconv.Itoa(max) + ")"
		if last := resp.Rejected[max-1].Record.Explanation; !strings.Contains(last, want) {
			t.Fatalf("last listed rejection says %q, want %q", last, want)
		}
	}
}
