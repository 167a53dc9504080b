package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

const feedIntent = `{"intent_id":"urn:oap:intent:feed","issuer_did":"did:web:t.example","category":"subscription",
 "constraints":[{"path":"/price","operator":"lt","value":"50"}],"projection":{"include":["/offer_id"]},
 "max_event_rate_per_minute":6000,
 "validity":{"from":"2026-01-01T00:00:00Z","to":"2036-01-01T00:00:00Z"},"resolution_policy":"full_set",
 "signature":{"alg":"EdDSA","value":"x"}}`

// sseEvent is one server-sent event.
type sseEvent struct {
	id, name string
	data     map[string]any
}

// openFeed posts the subscription intent, resuming after lastID when set,
// and returns the events as they come and a func that disconnects.
func openFeed(t *testing.T, url, lastID string) (<-chan sseEvent, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/storage/subscribe", strings.NewReader(feedIntent))
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("subscribe: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := make(chan sseEvent)
	go func() {
		defer close(events)
		defer resp.Body.Close()
		br := bufio.NewReader(resp.Body)
		var ev sseEvent
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			switch line = strings.TrimSuffix(line, "\n"); {
			case line == "":
				if ev.name != "" {
					select {
					case events <- ev:
					case <-ctx.Done():
						return
					}
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(line[6:]), &ev.data); err != nil {
					t.Errorf("event data %q: %v", line, err)
				}
			}
		}
	}()
	return events, cancel
}

// next returns the next event; a feed that goes quiet fails the test
// rather than hanging it.
func next(t *testing.T, events <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("the feed ended")
		}
		return ev
	case <-time.After(time.Minute):
		t.Fatal("no event for a minute")
	}
	return sseEvent{}
}

// A feed starts with the changes made after it; resumed from the last
// event's id after a disconnect, it misses no change and repeats none,
// whichever shard each came from.
func TestFeedResumesWithoutGapOrDuplicate(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 3)
	a := c.start("a", 0, 1, 2)
	srv := httptest.NewServer(a.Handler(nil))
	defer srv.Close()
	want := map[string]bool{} // content ids of the matching puts
	put := func(id, price string) canon.ContentID {
		rc, err := a.Put(ctx, store.Document{Body: offer(id, price)})
		if err != nil {
			t.Fatal(err)
		}
		if price != "99" {
			want[rc.ID.String()] = true
		}
		return rc.ID
	}
	put("before", "10")
	clear(want) // put before the subscription: not sent
	got := map[string]int{}
	events, disconnect := openFeed(t, srv.URL, "")
	if ev := next(t, events); ev.name != "subscribed" {
		t.Fatalf("first event %q, want subscribed", ev.name)
	}
	for i := range 8 {
		put(fmt.Sprintf("f%d", i), "10")
		put(fmt.Sprintf("g%d", i), "99") // does not match
	}
	var last string
	var first canon.ContentID
	for i := range 3 {
		ev := next(t, events)
		got[ev.data["content_id"].(string)]++
		last = ev.id
		if i == 0 {
			first, _ = canon.ParseContentID(ev.data["content_id"].(string))
		}
	}
	disconnect()
	// Deleted while the client is away: it holds it, and must hear of it.
	if _, err := a.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	for i := 8; i < 14; i++ {
		put(fmt.Sprintf("f%d", i), "10")
	}
	gone := put("f-gone", "10")
	if _, err := a.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	delete(want, gone.String()) // deleted before the feed judged it: no event
	end := put("f-end", "10")

	events, disconnect = openFeed(t, srv.URL, last)
	defer disconnect()
	if ev := next(t, events); ev.name != "subscribed" {
		t.Fatalf("first event on resume %q, want subscribed", ev.name)
	}
	deleted := 0
	for seenEnd := false; len(got) < len(want) || !seenEnd || deleted == 0; {
		ev := next(t, events)
		if ev.name == "deleted" && ev.data["content_id"] == first.String() && ev.data["match_unknown"] == true {
			deleted++
			continue
		}
		if ev.name != "candidate" {
			t.Fatalf("event %s %v, want candidates and the delete of %s", ev.name, ev.data, first)
		}
		id := ev.data["content_id"].(string)
		got[id]++
		if got[id] > 1 {
			t.Fatalf("%s sent twice", id)
		}
		if id == end.String() {
			seenEnd = true
		}
	}
	for id := range want {
		if got[id] != 1 {
			t.Errorf("%s sent %d times, want once", id, got[id])
		}
	}
	if len(got) != len(want) || deleted != 1 {
		t.Errorf("sent %d documents and %d deletes, want %d and 1", len(got), deleted, len(want))
	}
}

// A Last-Event-ID the cluster did not issue is refused, saying what to do.
func TestFeedRefusesForeignLastEventID(t *testing.T) {
	c := newTestCluster(t, 1)
	srv := httptest.NewServer(c.start("a", 0).Handler(nil))
	defer srv.Close()
	status, _, p := do(t, "POST", srv.URL+"/storage/subscribe", "Last-Event-ID: 42", feedIntent)
	if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(p["detail"]), "subscribe again without it") {
		t.Fatalf("foreign Last-Event-ID: %d %v", status, p)
	}
}

// A feed outlives the server's WriteTimeout: each event moves the
// deadline.
func TestFeedOutlivesWriteTimeout(t *testing.T) {
	c := newTestCluster(t, 1)
	a := c.start("a", 0)
	srv := httptest.NewUnstartedServer(a.Handler(nil))
	srv.Config.WriteTimeout = time.Nanosecond // passed before the handler runs
	srv.Start()
	defer srv.Close()
	events, disconnect := openFeed(t, srv.URL, "")
	defer disconnect()
	if ev := next(t, events); ev.name != "subscribed" {
		t.Fatalf("first event %q, want subscribed", ev.name)
	}
	rc, err := a.Put(context.Background(), store.Document{Body: offer("wt", "1")})
	if err != nil {
		t.Fatal(err)
	}
	if ev := next(t, events); ev.name != "candidate" || ev.data["content_id"] != rc.ID.String() {
		t.Fatalf("event %s %v, want the candidate put", ev.name, ev.data)
	}
}
