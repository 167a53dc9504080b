package cluster

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aqlstore/aqlstore/store"
)

// The feed fans in every shard's entries the reader may see, and resumes
// from a per-shard cursor.
func TestSubscribeFansInShards(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 3)
	n := c.start("a", 0, 1, 2)
	want := map[string]string{} // content id → op, of what alice may see
	put := func(owner, id string) {
		rc, err := n.Put(store.WithPrincipal(ctx, owner), store.Document{Body: offer(id, "1")})
		if err != nil {
			t.Fatal(err)
		}
		if owner != "did:web:bob.example" {
			want[rc.ID.String()+" put"] = owner
		}
	}
	for i := range 6 {
		put(store.Public, fmt.Sprintf("p%d", i))
		put(alice, fmt.Sprintf("a%d", i))
		put("did:web:bob.example", fmt.Sprintf("b%d", i))
	}
	rc, err := n.Put(store.WithPrincipal(ctx, alice), store.Document{Body: offer("gone", "1")})
	if err != nil {
		t.Fatal(err)
	}
	want[rc.ID.String()+" put"] = alice
	if _, err := n.Delete(store.WithPrincipal(ctx, alice), rc.ID); err != nil {
		t.Fatal(err)
	}
	want[rc.ID.String()+" delete"] = alice

	sctx, cancel := context.WithCancel(store.WithPrincipal(ctx, alice))
	cursor := map[int]uint64{}
	got := map[string]string{}
	for ch, err := range n.Subscribe(sctx, nil) {
		if errors.Is(err, context.Canceled) && len(got) == len(want) {
			break // the feed ends as it says: with ctx's error
		}
		if err != nil {
			t.Fatal(err)
		}
		got[ch.ID+" "+ch.Op] = ch.Owner
		cursor[ch.Shard] = ch.Seq
		if len(got) == len(want) {
			cancel()
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("feed %v\nwant %v", got, want)
	}
	// Resumed from the cursor, the feed holds only what came after.
	late, err := n.Put(store.WithPrincipal(ctx, alice), store.Document{Body: offer("late", "1")})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(store.WithPrincipal(ctx, alice))
	defer cancel()
	for ch, err := range n.Subscribe(rctx, cursor) {
		if err != nil {
			t.Fatal(err)
		}
		if ch.ID != late.ID.String() {
			t.Fatalf("resumed feed yields %+v, want only the late put", ch)
		}
		break
	}
}
