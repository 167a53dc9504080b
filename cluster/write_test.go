package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

const offerIntent = `{"intent_id":"urn:oap:intent:t","issuer_did":"did:web:t.example","category":"commercial",
 "constraints":[{"path":"/price","operator":"lt","value":"50"}],"projection":{"include":["/offer_id","/price"]},
 "validity":{"from":"2026-01-01T00:00:00Z","to":"2027-01-01T00:00:00Z"},"resolution_policy":"ranked_set",
 "signature":{"alg":"EdDSA","value":"x"}}`

func candidateIDs(t *testing.T, res *Result) []string {
	t.Helper()
	var ids []string
	cs, _ := res.Document["candidates"].([]any)
	for _, c := range cs {
		ids = append(ids, c.(map[string]any)["candidate_id"].(string))
	}
	return ids
}

func TestPutQueryDeleteThroughStreams(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 2)
	c.start("a", 0, 1)
	c.start("b", 0, 1)
	router := c.start("r")
	after := map[int]uint64{}
	for _, o := range []struct{ id, price string }{{"o1", "10"}, {"o2", "70"}, {"o3", "20"}, {"o4", "30"}} {
		rc, err := router.Put(ctx, store.Document{Body: offer(o.id, o.price)})
		if err != nil {
			t.Fatal(err)
		}
		if !rc.Created || rc.Seq == 0 {
			t.Fatalf("put %s: receipt %+v, want a new entry with its sequence", o.id, rc)
		}
		after[rc.Shard] = max(after[rc.Shard], rc.Seq)
	}
	res, err := router.Query(ctx, []byte(offerIntent), &QueryOptions{After: after})
	if err != nil {
		t.Fatal(err)
	}
	if got := candidateIDs(t, res); len(got) != 3 || got[0] != "o1" || got[1] != "o3" || got[2] != "o4" {
		t.Fatalf("candidates %v, want [o1 o3 o4] (no score: by candidate_id)", got)
	}
	// The same document again is the same receipt; another under its key
	// is a conflict, whichever node takes it.
	again, err := c.nodes["a"].Put(ctx, store.Document{Body: offer("o1", "10")})
	if err != nil || again.Created {
		t.Fatalf("idempotent put: %+v, %v", again, err)
	}
	if _, err := c.nodes["b"].Put(ctx, store.Document{Body: offer("o1", "11")}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("different content under o1: %v, want ErrConflict", err)
	}
	del, err := router.Delete(ctx, again.ID)
	if err != nil {
		t.Fatal(err)
	}
	res, err = router.Query(ctx, []byte(offerIntent), &QueryOptions{After: map[int]uint64{del.Shard: del.Seq}})
	if err != nil {
		t.Fatal(err)
	}
	if got := candidateIDs(t, res); len(got) != 2 || got[0] != "o3" {
		t.Fatalf("after deleting o1: %v, want [o3 o4]", got)
	}
	if _, err := router.Delete(ctx, again.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second delete: %v, want ErrNotFound", err)
	}
	// After the delete the key is free again.
	if rc, err := router.Put(ctx, store.Document{Body: offer("o1", "12")}); err != nil || !rc.Created {
		t.Fatalf("put after delete: %+v, %v", rc, err)
	}
}

// Writers racing for one natural key on different nodes: the stream's
// expected-last-subject-sequence lets exactly one content win.
func TestNaturalKeyClaimedOnceAcrossNodes(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 3)
	nodes := []*Node{c.start("a", 0, 1, 2), c.start("b"), c.start("c")}
	for round := range 5 {
		var wg sync.WaitGroup
		errs := make([]error, 6)
		key := "race-" + string(rune('a'+round))
		for i := range errs {
			wg.Go(func() {
				_, errs[i] = nodes[i%3].Put(ctx, store.Document{Body: offer(key, string(rune('1'+i)))})
			})
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, store.ErrConflict):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d writers claimed %s, want exactly 1", round, won, key)
		}
	}
}

// A replica that was down catches up from its durable consumer, and its
// store then holds what the other replica's holds.
func TestRestartedReplicaCatchesUp(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 1)
	c.start("a", 0)
	c.start("b", 0)
	router := c.start("r")
	for _, id := range []string{"p1", "p2"} {
		if _, err := router.Put(ctx, store.Document{Body: offer(id, "5")}); err != nil {
			t.Fatal(err)
		}
	}
	c.waitAll(ctx)
	c.stop("b")
	var last Receipt
	for _, id := range []string{"p3", "p4"} {
		rc, err := router.Put(ctx, store.Document{Body: offer(id, "5")})
		if err != nil {
			t.Fatal(err)
		}
		last = rc
	}
	c.stop("a")
	b := c.start("b", 0)
	if err := b.replicas[0].waitApplied(ctx, last.Seq, c.nodes["b"].o.WaitApplied); err != nil {
		t.Fatal(err)
	}
	// Only b serves the shard now: the answer is b's store.
	res, err := router.Query(ctx, []byte(offerIntent), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := candidateIDs(t, res); len(got) != 4 {
		t.Fatalf("restarted replica answers %v, want p1..p4", got)
	}
}

// TestPutRefusesBadSignals: a signals override is checked before the
// stream takes the entry, since every replica would refuse it there;
// a good one is stored canonical on every replica.
func TestPutRefusesBadSignals(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 1)
	a := c.start("a", 0)
	if _, err := a.Put(ctx, store.Document{Body: offer("o1", "10"), Signals: &canon.Signals{Score: "1e999999999999"}}); !errors.Is(err, store.ErrInvalid) ||
		!strings.Contains(err.Error(), "Document.Signals") {
		t.Fatalf("put with a score outside the double range: %v, want ErrInvalid naming Document.Signals", err)
	}
	rc, err := a.Put(ctx, store.Document{Body: offer("o2", "10"), Signals: &canon.Signals{Score: "0.50"}})
	if err != nil {
		t.Fatal(err)
	}
	if rc.Seq != 1 {
		t.Fatalf("the first accepted put is entry %d of the stream, want 1: the refused one was published", rc.Seq)
	}
	res, err := a.Query(ctx, []byte(offerIntent), &QueryOptions{After: map[int]uint64{rc.Shard: rc.Seq}})
	if err != nil {
		t.Fatal(err)
	}
	got := candidateIDs(t, res)
	if len(got) != 1 || got[0] != "o2" {
		t.Fatalf("candidates %v, want o2", got)
	}
	if score := res.Document["candidates"].([]any)[0].(map[string]any)["score"]; fmt.Sprint(score) != "0.5" {
		t.Fatalf("o2's score %v, want 0.5 (the override, canonical)", score)
	}
}

// TestLocalShardOutOfTimeIsUnavailable: a shard this node serves, asked
// to see a sequence its replica has not applied when the caller's time
// runs out (a write's attempt has 2 s, WaitApplied 5 s), is unavailable
// for the moment, and the error keeps the deadline so that a write
// retries; it is never "not found", which made a delete right after its
// put on a loaded machine report a document it had stored as missing.
func TestLocalShardOutOfTimeIsUnavailable(t *testing.T) {
	c := newTestCluster(t, 1)
	a := c.start("a", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := a.ask(ctx, 0, &request{Op: "locate", Principal: store.Public, ID: canon.Sum([]byte("{}")).String(), After: 1 << 40})
	if !errors.Is(err, ErrShardUnavailable) || !transient(err) || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ask past its deadline: %v, want ErrShardUnavailable keeping the deadline", err)
	}
}
