package cluster

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/aqlstore/aqlstore/store"
	"github.com/nats-io/nats.go/jetstream"
)

// Erasure reaches every replica and the stream: after Erase no stream
// entry holds the document's bytes, a replica started afterwards replays
// the stream without them, and the natural key stays claimed by nobody.
func TestEraseReachesReplicasAndStream(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 1)
	a := c.start("a", 0)
	secret := offer("secret", "1")
	put, err := a.Put(ctx, store.Document{Body: secret})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Put(ctx, store.Document{Body: offer("kept", "1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Erase(ctx, put.ID); err != nil {
		t.Fatal(err)
	}
	st, err := a.js.Stream(ctx, streamName(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetMsg(ctx, put.Seq); !errors.Is(err, jetstream.ErrMsgNotFound) {
		t.Fatalf("the put's entry %d: %v, want it purged", put.Seq, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(m.Data, []byte("SECRET")) {
			t.Fatalf("entry %d still holds the erased document", seq)
		}
	}
	b := c.start("b", 0)
	if err := b.WaitCaughtUp(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*Node{a, b} {
		if ids := storedIDs(t, n.replicas[0]); len(ids) != 1 {
			t.Fatalf("replica holds %d documents after the erasure, want 1 (kept)", len(ids))
		}
	}
	if rc, err := a.Put(ctx, store.Document{Body: offer("secret", "2")}); err != nil || !rc.Created {
		t.Fatalf("the erased key again: %+v, %v", rc, err)
	}
}
