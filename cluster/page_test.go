package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/store"
)

// A shard answers a full_set page with its first page-size candidates
// after the cursor, not with a ranking of all it holds, and the pages
// still cover every candidate once, in rank order.
func TestDeepPagesRankOnlyThePage(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 2)
	n := c.start("a", 0, 1)
	var want []string
	for i := range 40 {
		id := fmt.Sprintf("p%02d", i)
		if _, err := n.Put(ctx, store.Document{Body: offer(id, "1")}); err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	c.waitAll(ctx)
	intent := strings.Replace(offerIntent, `"ranked_set"`, `"full_set"`, 1)
	const pageSize = 3
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		res, err := n.Query(ctx, []byte(intent), &QueryOptions{PageSize: pageSize, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, cand := range res.Document["candidates"].([]any) {
			payload := cand.(map[string]any)["payload"].(map[string]any)
			got = append(got, payload["offer_id"].(string))
		}
		for shard, r := range n.replicas {
			if k := r.resolved.Load(); k > pageSize {
				t.Fatalf("page %d: shard %d resolved %d candidates in full, want at most the page's %d", page, shard, k, pageSize)
			}
		}
		if cursor = stringOf(res.Document["next_cursor"]); cursor == "" {
			break
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("pages hold %v\nwant %v", got, want)
	}
}
