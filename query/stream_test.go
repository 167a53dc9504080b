package query

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
	"pgregory.net/rapid"
)

// TestStreamEqualsResolvePages: over random stores and intents, Stream
// through the index plans like Resolve (Explain receives its plan) and
// yields exactly the candidates of Resolve's full_set pages, walked to
// the end through the cursors: the same ids, payloads and decision
// records, in document order rather than rank order.
func TestStreamEqualsResolvePages(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d, s, ix := openDiffStore(t)
		defer d.remove()
		defer func() { s.Close() }()
		ctx := context.Background()
		for n := rapid.IntRange(1, 30).Draw(t, "docs"); n > 0; n-- {
			owner := rapid.SampledFrom([]string{store.Public, store.Public, "did:key:other"}).Draw(t, "owner")
			_, _ = s.Put(ctx, store.Document{Body: []byte(genObject(t, 0)), Owner: owner, Kind: canon.KindJSON, Signals: genSignals(t)})
		}
		// Stream allots no budget (that needs every candidate ranked
		// first), so its intents have none.
		src := budgetMember.ReplaceAllString(genIntent(t), "")
		for _, p := range []string{"ranked_set", "single_best"} {
			src = strings.Replace(src, `"resolution_policy":"`+p+`"`, `"resolution_policy":"full_set"`, 1)
		}
		in, err := aql.Parse([]byte(src), nil)
		if err != nil {
			t.Skip("a generated operand the intent rules refuse")
		}
		var want []string
		pageSize := rapid.IntRange(1, 4).Draw(t, "pagesize")
		for cursor := ""; ; {
			resp, err := Resolve(ctx, s, in, &Options{Signer: testSigner(), At: at, Index: ix, PageSize: pageSize, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for i := range resp.Candidates {
				want = append(want, streamedJSON(&resp.Candidates[i]))
			}
			if cursor = resp.NextCursor; cursor == "" {
				break
			}
		}
		planned := false
		var got []string
		var last uint32
		for c, err := range Stream(ctx, s, in, &Options{Signer: testSigner(), At: at, Index: ix, Explain: func(*Plan) { planned = true }}) {
			if err != nil {
				t.Fatal(err)
			}
			if len(got) > 0 && c.num <= last {
				t.Fatalf("document %d streamed after %d", c.num, last)
			}
			last = c.num
			got = append(got, streamedJSON(c))
		}
		if !planned {
			t.Fatal("Stream did not plan through the index")
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("Stream yields\n%s\nResolve's pages hold\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// budgetMember matches the budget genIntent may draw.
var budgetMember = regexp.MustCompile(`,"budget":\{[^}]*\}`)

// streamedJSON is what Stream and a full_set page say of a candidate
// alike: all but its rank and its decision record's id.
func streamedJSON(c *Candidate) string {
	rec := c.Record.document()
	delete(rec, "decision_id")
	return string(canon.AppendValue(nil, map[string]any{"candidate_id": c.CandidateID, "score": c.Score,
		"payload": c.Payload, "decision_record": rec, "over_budget": c.OverBudget}))
}
