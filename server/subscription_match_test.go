package server

import (
	"context"
	"testing"

	"github.com/aqlstore/aqlstore/server/client"
)

// TestSubscriptionQualityFloor: a subscription applies the intent's
// quality floor exactly as a query does (query.Matcher): a candidate below
// the floor, or without the signal, sends no event.
func TestSubscriptionQualityFloor(t *testing.T) {
	ts := startServer(t, nil)
	sub := intent("subscription", `{"path": "/category", "operator": "eq", "value": "running_shoes"}`,
		`"max_event_rate_per_minute": 100, "quality_floor": {"performance_score": 0.8},`)
	s := ts.subscribed("", sub, "")
	cand := func(id, quality string) string {
		return `{"id": "` + id + `", "record": {"category": "running_shoes", "name": "` + id + `"}` + quality + `}`
	}
	ts.putPublic(cand("weak", `, "quality": {"performance_score": 0.5}`))
	ts.putPublic(cand("unrated", ""))
	ts.putPublic(cand("strong", `, "quality": {"performance_score": 0.9}`))
	if id, _ := ts.candidateEvent(nextEvent(t, s)); id != "strong" {
		t.Fatalf("first event %s, want strong (weak and unrated are below the floor)", id)
	}
	// The same intent as a query agrees.
	query := intent("commercial", `{"path": "/category", "operator": "eq", "value": "running_shoes"}`,
		`"quality_floor": {"performance_score": 0.8},`)
	body, err := ts.client("").Intent(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	cands := decode(t, body)["candidates"].([]any)
	if len(cands) != 1 || cands[0].(map[string]any)["candidate_id"] != "strong" {
		t.Fatalf("the query disagrees: %s", body)
	}
}

// TestSubscriptionDeletesAcrossReconnect: a document sent before the
// client left and deleted while it was away is reported on resume
// (match_unknown: its bytes are gone), and one deleted after the client
// came back is reported with its candidate id, though this connection
// never sent it; a delete of a document that never matched is not.
func TestSubscriptionDeletesAcrossReconnect(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	c := ts.client(tokenB)
	put := func(body string) string {
		t.Helper()
		refs, err := c.Put(ctx, []byte(body), client.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return refs[0].ID
	}
	s := ts.subscribed(tokenB, shoeSubscription(100), "")
	gone, kept := put(shoe("gone", 1)), put(shoe("kept", 2))
	noise := put(`{"offer_id": "noise", "category": "socks"}`)
	ts.candidateEvent(nextEvent(t, s))
	_, last := ts.candidateEvent(nextEvent(t, s))
	s.Close()

	for _, id := range []string{gone, noise} {
		if err := c.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	s2 := ts.subscribed(tokenB, shoeSubscription(100), last)
	ev := nextEvent(t, s2)
	ts.verified(ev.Data)
	doc := decode(t, ev.Data)
	if ev.Name != "deleted" || doc["content_id"] != gone || doc["match_unknown"] != true {
		t.Fatalf("on resume: %s %s, want gone deleted (match_unknown)", ev.Name, ev.Data)
	}
	if err := c.Delete(ctx, kept); err != nil {
		t.Fatal(err)
	}
	ev = nextEvent(t, s2)
	doc = decode(t, ev.Data)
	if ev.Name != "deleted" || doc["candidate_id"] != "kept" || doc["match_unknown"] != nil || ev.ID != doc["event_id"] {
		t.Fatalf("after resume: %s id %s %s, want kept deleted", ev.Name, ev.ID, ev.Data)
	}
	if n := ts.eventSeq(ev.ID); n != ts.st.Head() {
		t.Fatalf("event id %s opens to %d, want the head %d", ev.ID, n, ts.st.Head())
	}
}
