package cluster

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// localReplica is a replica of shard 0 over a store of its own, with no
// stream: the tests hand it entries directly.
func localReplica(t *testing.T) *replica {
	t.Helper()
	s, ix, err := index.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return &replica{n: &Node{o: Options{Logf: t.Logf}}, s: s, ix: ix, changed: make(chan struct{}), order: orderBook{}}
}

// applyEntries returns the entries a mixed batch holds: a document put
// and then deleted in the same batch, a key reused after its delete, an
// idempotent put, a conflicting one (refused), a body that does not
// parse (refused), a second writer and grants.
func applyEntries(t *testing.T, s *store.Store) []*entry {
	t.Helper()
	put := func(principal, owner string, body []byte) *entry {
		e := &entry{Op: opPut, Principal: principal, Owner: owner, Body: body}
		if p, err := s.Parse(body, ""); err == nil {
			e.Kind, e.ID = p.Kind, p.ID().String()
		}
		return e
	}
	a, b, a2 := put(alice, alice, offer("a", "1")), put(alice, alice, offer("b", "2")), put(alice, alice, offer("a", "3"))
	return []*entry{
		a,
		b,
		{Op: opDelete, Principal: alice, Owner: alice, ID: a.ID},
		a2,
		put(alice, alice, offer("b", "2")), // the same content again
		put(alice, alice, offer("a", "4")), // a used key: refused
		put(alice, alice, []byte(`{"offer_id":`)),
		put(store.Public, store.Public, offer("p", "5")),
		{Op: opGrant, Principal: alice, Owner: alice, ID: b.ID, Grantee: bob},
		put(alice, alice, offer("c", "6")),
		{Op: opDelete, Principal: alice, Owner: alice, ID: b.ID},
		put(alice, alice, offer("b", "7")),
		{Op: opGrant, Principal: alice, Owner: alice, ID: a2.ID, Grantee: bob},
		{Op: opRevoke, Principal: alice, Owner: alice, ID: a2.ID, Grantee: bob},
		put(store.Public, store.Public, offer("q", "8")),
	}
}

// contents lists a store's documents in its document order, with who
// may read each.
func contents(t *testing.T, s *store.Store) []string {
	t.Helper()
	ctx := store.WithPrincipal(context.Background(), alice)
	var out []string
	for _, owner := range []string{alice, store.Public} {
		for d, err := range s.Scan(store.WithPrincipal(ctx, owner), "") {
			if err != nil {
				t.Fatal(err)
			}
			var gs []string
			if d.Owner != store.Public {
				var err error
				if gs, err = s.Grantees(store.WithPrincipal(ctx, d.Owner), store.Ref{ID: d.ID}); err != nil {
					t.Fatal(err)
				}
			}
			out = append(out, fmt.Sprintf("%s %s %s %v", d.Owner, d.NaturalKey, d.ID, gs))
		}
	}
	return out
}

// A batch ends as the entries applied one by one do, each refused entry
// refused alike; and so does the same batch delivered again after a
// crash before its acknowledgements, though it puts a document it also
// deleted.
func TestBatchedApplyEqualsOneByOne(t *testing.T) {
	batched, single := localReplica(t), localReplica(t)
	entries := applyEntries(t, batched.s)

	var wantRefused []int
	for i, e := range entries {
		if err := single.apply(e); err != nil {
			wantRefused = append(wantRefused, i)
		}
	}
	want := contents(t, single.s)
	if len(want) == 0 || len(wantRefused) != 2 {
		t.Fatalf("one by one: %d documents, entries %v refused; the case is vacuous", len(want), wantRefused)
	}
	for delivery := 1; delivery <= 2; delivery++ {
		todo := make([]pending, len(entries))
		for i, e := range entries {
			todo[i] = pending{seq: uint64(i + 1), e: e}
		}
		if err := batched.applyPending(todo); err != nil {
			t.Fatal(err)
		}
		var refused []int
		for i := range todo {
			if todo[i].err != nil {
				refused = append(refused, i)
			}
		}
		if delivery == 1 && !slices.Equal(refused, wantRefused) {
			t.Errorf("batched: entries %v refused, one by one %v", refused, wantRefused)
		}
		if got := contents(t, batched.s); !reflect.DeepEqual(got, want) {
			t.Errorf("delivery %d: batched store holds\n%v\none by one\n%v", delivery, got, want)
		}
	}
}

// testMsg is a delivered stream entry for applyMsgs.
type testMsg struct {
	jetstream.Msg // unused methods
	seq           uint64
	data          []byte
	acked         *[]uint64
}

func (m *testMsg) Metadata() (*jetstream.MsgMetadata, error) {
	return &jetstream.MsgMetadata{Sequence: jetstream.SequencePair{Stream: m.seq}, Timestamp: time.Unix(0, int64(m.seq))}, nil
}
func (m *testMsg) Data() []byte         { return m.data }
func (m *testMsg) Headers() nats.Header { return nil }
func (m *testMsg) Ack() error {
	*m.acked = append(*m.acked, m.seq)
	return nil
}

// An entry redelivered after later ones (a node that crashed before its
// acknowledgements) is acknowledged and not applied again: a put
// redelivered after its document's delete does not bring it back.
func TestRedeliveryAfterLaterEntriesIsDropped(t *testing.T) {
	r := localReplica(t)
	entries := applyEntries(t, r.s)
	var acked []uint64
	msg := func(seq uint64) jetstream.Msg {
		return &testMsg{seq: seq, data: entries[seq-1].encode(), acked: &acked}
	}
	r.applyMsgs([]jetstream.Msg{msg(1), msg(2), msg(3)}) // put a, put b, delete a
	want := contents(t, r.s)
	r.applyMsgs([]jetstream.Msg{msg(1)})
	if got := contents(t, r.s); !reflect.DeepEqual(got, want) {
		t.Errorf("after the redelivery the store holds\n%v\nbefore it\n%v", got, want)
	}
	if !slices.Equal(acked, []uint64{1, 2, 3, 1}) || r.applied() != 3 || r.handled.Load() != 3 {
		t.Errorf("acknowledged %v, applied %d, handled %d; want 1 2 3 1, 3 and 3", acked, r.applied(), r.handled.Load())
	}
	id, _ := canon.ParseContentID(entries[0].ID)
	if _, err := r.s.Get(store.WithPrincipal(context.Background(), alice), store.Ref{ID: id}); err == nil {
		t.Error("the deleted document is back after its put was redelivered")
	}
}
