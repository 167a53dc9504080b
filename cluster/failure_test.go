package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
	"github.com/nats-io/nats.go"
)

// putOffers puts offers o0..o(n-1) (all under the intent's price bound)
// and returns the shard of each.
func putOffers(t *testing.T, n *Node, count int) map[string]int {
	t.Helper()
	shards := map[string]int{}
	for i := range count {
		id := fmt.Sprintf("o%d", i)
		rc, err := n.Put(context.Background(), store.Document{Body: offer(id, "1")})
		if err != nil {
			t.Fatal(err)
		}
		shards[id] = rc.Shard
	}
	return shards
}

// A shard no replica serves: the query is refused naming the shard, or,
// when asked, answered without it and marked partial (signed so).
func TestShardWithoutReplica(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 3)
	c.start("a", 0, 1)
	c.start("b", 2)
	router := c.start("r")
	shards := putOffers(t, router, 12)
	c.waitAll(ctx)
	c.stop("b")

	_, err := router.Query(ctx, []byte(offerIntent), nil)
	var se *ShardError
	if !errors.As(err, &se) || se.Shard != 2 || !errors.Is(err, ErrShardUnavailable) {
		t.Fatalf("query without shard 2: %v, want a *ShardError naming shard 2", err)
	}
	res, err := router.Query(ctx, []byte(offerIntent), &QueryOptions{Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Missing, []int{2}) {
		t.Fatalf("Missing %v, want [2]", res.Missing)
	}
	partial, _ := res.Document["partial"].(map[string]any)
	if ms, _ := partial["missing_shards"].([]any); len(ms) != 1 || fmt.Sprint(ms[0]) != "2" {
		t.Fatalf("response member partial = %v, want missing_shards [2]", res.Document["partial"])
	}
	var want []string
	for id, s := range shards {
		if s != 2 {
			want = append(want, id)
		}
	}
	slices.Sort(want)
	if got := candidateIDs(t, res); !slices.Equal(got, want) {
		t.Fatalf("partial answer %v, want shards 0 and 1's %v", got, want)
	}
	pub, err := sign.ParseDIDKey(testKey.DID())
	if err != nil {
		t.Fatal(err)
	}
	if err := sign.Verify(res.Document, pub); err != nil {
		t.Fatalf("partial answer's signature: %v", err)
	}

	// Writes to the shard go on (JetStream stores them); its replica,
	// back, catches up and the answer is whole again.
	rc, err := router.Put(ctx, store.Document{Body: offer("late", "1")})
	if err != nil {
		t.Fatal(err)
	}
	c.start("b", 2)
	res, err = router.Query(ctx, []byte(offerIntent), &QueryOptions{After: map[int]uint64{rc.Shard: rc.Seq}})
	if err != nil {
		t.Fatal(err)
	}
	if got := candidateIDs(t, res); len(got) != 13 {
		t.Fatalf("after the replica came back: %d candidates, want 13", len(got))
	}
}

// A query that must see a sequence no replica applied waits, bounded,
// then is refused as unavailable, naming the shard.
func TestReadYourWritesIsBounded(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 1)
	c.wait = 50 * time.Millisecond
	c.start("a", 0)
	rc, err := c.nodes["a"].Put(ctx, store.Document{Body: offer("x", "1")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.nodes["a"].Query(ctx, []byte(offerIntent), &QueryOptions{After: map[int]uint64{0: rc.Seq}}); err != nil {
		t.Fatalf("a sequence applied: %v", err)
	}
	_, err = c.nodes["a"].Query(ctx, []byte(offerIntent), &QueryOptions{After: map[int]uint64{0: rc.Seq + 1}})
	var se *ShardError
	if !errors.As(err, &se) || se.Shard != 0 || !errors.Is(err, ErrShardUnavailable) {
		t.Fatalf("a sequence not written yet: %v, want a *ShardError naming shard 0", err)
	}
}

// A replica that does not answer within a write's attempt is a transient
// error, which the write retries, not a refusal.
func TestUnansweredRequestIsTransient(t *testing.T) {
	c := newTestCluster(t, 1)
	n := c.start("router")
	// A member of shard 0's queue group that never answers.
	sub, err := n.nc.QueueSubscribe(requestSubject(0), queueGroup(0), func(*nats.Msg) {})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = n.ask(ctx, 0, &request{Op: "locate"})
	var se *ShardError
	if !errors.As(err, &se) || !errors.Is(err, ErrShardUnavailable) || !transient(err) {
		t.Fatalf("unanswered request: %v, want a transient *ShardError", err)
	}
}
