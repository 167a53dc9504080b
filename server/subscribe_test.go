package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/server/client"
)

// shoeSubscription matches running shoes in stock.
func shoeSubscription(rate int) []byte {
	return intent("subscription", `{"all_of": [
		{"path": "/category", "operator": "eq", "value": "running_shoes"},
		{"path": "/inventory/available", "operator": "gt", "value": 0}]}`,
		`"max_event_rate_per_minute": `+strconv.Itoa(rate)+`,`)
}

func shoe(id string, available int) string {
	return fmt.Sprintf(`{"offer_id": %q, "category": "running_shoes", "inventory": {"available": %d}}`, id, available)
}

// subscribed opens a subscription and waits for its `subscribed` event.
func (ts *testServer) subscribed(token string, body []byte, lastEventID string) *client.Stream {
	ts.t.Helper()
	s, err := ts.client(token).Subscribe(context.Background(), body, lastEventID)
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { s.Close() })
	if ev := nextEvent(ts.t, s); ev.Name != "subscribed" {
		ts.t.Fatalf("first event %s %s, want subscribed", ev.Name, ev.Data)
	}
	return s
}

// candidateID reads a signed candidate event.
func (ts *testServer) candidateEvent(ev *client.Event) (id string, seq string) {
	ts.t.Helper()
	if ev.Name != "candidate" {
		ts.t.Fatalf("event %s %s, want candidate", ev.Name, ev.Data)
	}
	ts.verified(ev.Data)
	doc := decode(ts.t, ev.Data)
	c, _ := doc["candidate"].(map[string]any)
	rec, _ := c["decision_record"].(map[string]any)
	if _, ok := rec["constraint_evaluations"].([]any); !ok {
		ts.t.Fatalf("candidate event without constraint_evaluations: %s", ev.Data)
	}
	if doc["event_id"] != ev.ID {
		ts.t.Fatalf("event id %s is not the event's event_id %v", ev.ID, doc["event_id"])
	}
	ts.eventSeq(ev.ID)
	return c["candidate_id"].(string), ev.ID
}

// eventSeq opens an event id: the store's receipt seq it seals. The seq
// itself never shows: it counts every tenant's mutations.
func (ts *testServer) eventSeq(id string) uint64 {
	ts.t.Helper()
	if strings.Trim(id, "0123456789") == "" {
		ts.t.Fatalf("event id %q is a bare number", id)
	}
	seq, err := ts.signer.Sealer(eventIDPurpose).OpenUint64(id)
	if err != nil {
		ts.t.Fatalf("event id %q does not open: %v", id, err)
	}
	return seq
}

func TestSubscriptionDeliversMatchingInOrderAndResumes(t *testing.T) {
	ts := startServer(t, nil)
	s := ts.subscribed("", shoeSubscription(100), "")
	ts.putPublic(shoe("o-1", 3))
	ts.putPublic(`{"offer_id": "o-2", "category": "hiking_boots", "inventory": {"available": 9}}`)
	ts.putPublic(shoe("o-3", 0))
	delID := ts.putPublic(shoe("o-4", 1))
	// Another tenant's private document matches too, but is not the
	// public subscriber's to see.
	if _, err := ts.client(tokenB).Put(context.Background(), []byte(shoe("secret", 5)), client.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	ts.putPublic(shoe("o-5", 2))
	var got []string
	var last string
	for range 3 {
		id, seq := ts.candidateEvent(nextEvent(t, s))
		got, last = append(got, id), seq
	}
	if fmt.Sprint(got) != "[o-1 o-4 o-5]" {
		t.Fatalf("events %v, want [o-1 o-4 o-5]", got)
	}
	if err := ts.client(tokenA).Delete(context.Background(), delID); err == nil {
		t.Fatal("deleting another owner's copy succeeded") // o-4 is public: delete needs ?visibility=public
	}
	s.Close()

	// Changes made while the client is away arrive on reconnect, once.
	ts.putPublic(shoe("o-6", 4))
	ts.putPublic(`{"offer_id": "o-7", "category": "running_shoes"}`)
	ts.putPublic(shoe("o-8", 7))
	s2 := ts.subscribed("", shoeSubscription(100), last)
	var resumed []string
	for range 2 {
		id, _ := ts.candidateEvent(nextEvent(t, s2))
		resumed = append(resumed, id)
	}
	if fmt.Sprint(resumed) != "[o-6 o-8]" {
		t.Fatalf("after Last-Event-ID %s: %v, want [o-6 o-8]", last, resumed)
	}
}

func TestSubscriptionOwnDocumentsAndDeletes(t *testing.T) {
	ts := startServer(t, nil)
	s := ts.subscribed(tokenB, shoeSubscription(100), "")
	refs, err := ts.client(tokenB).Put(context.Background(), []byte(shoe("mine", 5)), client.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := ts.candidateEvent(nextEvent(t, s)); id != "mine" {
		t.Fatalf("tenant B's subscription got %s", id)
	}
	if err := ts.client(tokenB).Delete(context.Background(), refs[0].ID); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, s)
	ts.verified(ev.Data)
	if doc := decode(t, ev.Data); ev.Name != "deleted" || doc["candidate_id"] != "mine" {
		t.Fatalf("after delete: %s %s", ev.Name, ev.Data)
	}
}

func TestSubscriptionRateCap(t *testing.T) {
	ts := startServer(t, nil)
	before := ts.srv.eventID(ts.st.Head())
	for i := 1; i <= 5; i++ {
		ts.putPublic(shoe("o-"+strconv.Itoa(i), i))
		ts.putPublic(`{"offer_id": "noise-` + strconv.Itoa(i) + `", "category": "socks"}`)
	}
	// Resuming before the five matching puts, with a cap of 2 a minute:
	// one event, then the other four coalesced into the last free slot.
	s := ts.subscribed("", shoeSubscription(2), before)
	if id, _ := ts.candidateEvent(nextEvent(t, s)); id != "o-1" {
		t.Fatalf("first event %s", id)
	}
	ev := nextEvent(t, s)
	ts.verified(ev.Data)
	doc := decode(t, ev.Data)
	events, _ := doc["events"].([]any)
	if ev.Name != "coalesced" || fmt.Sprint(doc["count"]) != "4" || len(events) != 4 ||
		ev.ID != events[3].(map[string]any)["event_id"] || ts.eventSeq(ev.ID) != ts.st.Head()-1 {
		t.Fatalf("second event %s id %s: %s", ev.Name, ev.ID, ev.Data)
	}
	var ids []string
	for _, e := range doc["events"].([]any) {
		ids = append(ids, e.(map[string]any)["candidate"].(map[string]any)["candidate_id"].(string))
	}
	if fmt.Sprint(ids) != "[o-2 o-3 o-4 o-5]" {
		t.Fatalf("coalesced %v", ids)
	}
	// The window is full: the next match is held back, and the client is told.
	ts.putPublic(shoe("o-6", 6))
	ev = nextEvent(t, s)
	ts.verified(ev.Data)
	doc = decode(t, ev.Data)
	if ev.Name != "rate_limited" || ev.ID != "" || fmt.Sprint(doc["pending_events"]) != "1" || doc["next_event_at"] == nil {
		t.Fatalf("third event %s id %q: %s", ev.Name, ev.ID, ev.Data)
	}
}

func TestSubscriptionRefusals(t *testing.T) {
	ts := startServer(t, nil)
	for name, tc := range map[string]struct {
		body   []byte
		last   string
		status int
	}{
		"not a subscription":   {intent("discovery", `{"path": "/a", "operator": "exists", "value": true}`, ""), "", 400},
		"bad Last-Event-ID":    {shoeSubscription(5), "abc", 400},
		"future Last-Event-ID": {shoeSubscription(5), "99999", 400},
		"no rate":              {intent("subscription", `{"path": "/a", "operator": "exists", "value": true}`, ""), "", 400},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ts.client("").Subscribe(context.Background(), tc.body, tc.last)
			ce, ok := err.(*client.Error)
			if !ok || ce.Status != tc.status {
				t.Fatalf("err %v, want status %d", err, tc.status)
			}
			ts.verified(ce.Body)
		})
	}
}

// TestStreamOutlivesServerTimeouts: a subscription stays open past the
// server's read and write timeouts (the stream moves its own deadlines),
// and still delivers.
func TestStreamOutlivesServerTimeouts(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.ReadTimeout, c.WriteTimeout = 100*time.Millisecond, 100*time.Millisecond })
	s := ts.subscribed("", shoeSubscription(10), "")
	time.Sleep(400 * time.Millisecond) // longer than both timeouts; no assertion on time
	ts.putPublic(shoe("late", 1))
	if id, _ := ts.candidateEvent(nextEvent(t, s)); id != "late" {
		t.Fatalf("got %s", id)
	}
}

// TestStreamLimit: beyond MaxStreams open streams a new one is refused
// with 503, Retry-After and a signed too_many_streams problem, and a slot
// frees when a stream closes.
func TestStreamLimit(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxStreams = 1 })
	first := ts.subscribed("", shoeSubscription(5), "")
	req, err := http.NewRequest(http.MethodPost, ts.url+client.PathSubscribe, bytes.NewReader(shoeSubscription(5)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req) // a stream admitted by mistake ends by timeout
	if err != nil {
		t.Fatal(err)
	}
	status, h := resp.StatusCode, resp.Header
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || !bytes.Contains(body, []byte("too_many_streams")) {
		t.Fatalf("second stream: %d, Retry-After %q, %s; want 503 too_many_streams", status, h.Get("Retry-After"), body)
	}
	ts.verified(body)
	first.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := ts.client("").Subscribe(context.Background(), shoeSubscription(5), "")
		if err == nil {
			s.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stream slot after the first closed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSubscriptionSeesGrantsAndRevokes: a grant to the subscriber of a
// matching document is a candidate event (op grant), its revoke a deleted
// event (op revoke); a grant to someone else, or of a document that does
// not match, is nothing; and a revoke made while the subscriber was away
// is reported on reconnect (match_unknown).
func TestSubscriptionSeesGrantsAndRevokes(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	put := func(body string) string {
		t.Helper()
		refs, err := ts.client(tokenA).Put(ctx, []byte(body), client.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return refs[0].ID
	}
	grant := func(method, id, grantee string) {
		t.Helper()
		if s, _, b := ts.send(method, pathDocuments+"/"+id+pathGrantsSuffix+"/"+grantee, tokenA, nil); s != http.StatusNoContent {
			t.Fatalf("%s grant of %s to %s: %d %s", method, id, grantee, s, b)
		}
	}
	matching, other := put(shoe("granted", 4)), put(`{"offer_id":"socks","category":"socks"}`)
	s := ts.subscribed(tokenB, shoeSubscription(100), "")
	grant("PUT", other, tenantB)                // does not match the subscription
	grant("PUT", matching, "did:web:c.example") // not the subscriber's grant
	grant("PUT", matching, tenantB)
	ev := nextEvent(t, s)
	id, last := ts.candidateEvent(ev)
	if doc := decode(t, ev.Data); id != "granted" || doc["op"] != "grant" {
		t.Fatalf("after the grant: %s %s", ev.Name, ev.Data)
	}
	grant("DELETE", matching, "did:web:c.example")
	grant("DELETE", matching, tenantB)
	ev = nextEvent(t, s)
	ts.verified(ev.Data)
	if doc := decode(t, ev.Data); ev.Name != "deleted" || doc["op"] != "revoke" || doc["candidate_id"] != "granted" {
		t.Fatalf("after the revoke: %s %s", ev.Name, ev.Data)
	}
	s.Close()

	// Granted again while the subscriber is away: on resume it hears, in
	// order, of the revoke it missed and of the new grant.
	grant("PUT", matching, tenantB)
	s2 := ts.subscribed(tokenB, shoeSubscription(100), last)
	ev = nextEvent(t, s2)
	if doc := decode(t, ev.Data); ev.Name != "deleted" || doc["op"] != "revoke" {
		t.Fatalf("on resume, first: %s %s", ev.Name, ev.Data)
	}
	ev = nextEvent(t, s2)
	if id, _ := ts.candidateEvent(ev); id != "granted" || decode(t, ev.Data)["op"] != "grant" {
		t.Fatalf("on resume, second: %s %s", ev.Name, ev.Data)
	}
	last = ev.ID
	s2.Close()

	// Revoked while it is away: the document is no longer visible when
	// it reconnects, so only the revoke receipt tells it (match_unknown).
	grant("DELETE", matching, tenantB)
	s3 := ts.subscribed(tokenB, shoeSubscription(100), last)
	ev = nextEvent(t, s3)
	if doc := decode(t, ev.Data); ev.Name != "deleted" || doc["op"] != "revoke" || doc["match_unknown"] != true {
		t.Fatalf("a revoke while away: %s %s", ev.Name, ev.Data)
	}
}
