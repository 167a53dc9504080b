package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/server/client"
)

// The boundary tests of the server's limits, one per limit: a request at
// the limit is served, one past it is refused with the status of the
// limit and a signed problem document whose detail names the limit, its
// value and the serve flag that sets it.

// pad appends spaces to b (JSON allows them after the value) until it is
// n bytes long.
func pad(t *testing.T, b []byte, n int) []byte {
	t.Helper()
	if len(b) > n {
		t.Fatalf("the test body is %d bytes already, over %d", len(b), n)
	}
	return append(bytes.Clone(b), bytes.Repeat([]byte(" "), n-len(b))...)
}

// chunked hides a body's length, so the server sees no Content-Length
// and must count the bytes as they arrive.
type chunked struct{ io.Reader }

// sendBody posts body and returns status, headers and body; hideLength
// sends it chunked. A stream opened by mistake ends by the client's
// timeout rather than hanging the test.
func (ts *testServer) sendBody(method, path, contentType, token string, body []byte, hideLength bool) (int, http.Header, []byte) {
	ts.t.Helper()
	var r io.Reader = bytes.NewReader(body)
	if hideLength {
		r = chunked{r}
	}
	var headers []string
	if contentType != "" {
		headers = []string{"Content-Type", contentType}
	}
	status, h, b, err := exchange(&http.Client{Timeout: 10 * time.Second}, method, ts.url+path, token, r, headers...)
	if err != nil {
		ts.t.Fatal(err)
	}
	return status, h, b
}

// limitProblem checks a refusal for a limit: status, code, a detail that
// holds every one of parts, and the limit as an extension member.
func (ts *testServer) limitProblem(status int, h http.Header, body []byte, wantStatus int, code, member string, limit int, parts ...string) map[string]any {
	ts.t.Helper()
	doc := ts.checkProblem(status, h, body, wantStatus, code)
	detail, _ := doc["detail"].(string)
	for _, p := range parts {
		if !strings.Contains(detail, p) {
			ts.t.Errorf("detail %q does not say %q", detail, p)
		}
	}
	if got := fmt.Sprint(doc[member]); got != strconv.Itoa(limit) {
		ts.t.Errorf("%s is %s, want %d: %s", member, got, limit, body)
	}
	return doc
}

func TestLimitRequestBody(t *testing.T) {
	const max, importMax = 4096, 8192
	ts := startServer(t, func(c *Config) { c.MaxBodyBytes, c.MaxImportBytes = max, importMax })
	for _, hide := range []bool{false, true} {
		// An intent.
		at := pad(t, probeIntent, max)
		if status, _, body := ts.sendBody("POST", "/oap/intent", contentOAP, "", at, hide); status != 200 {
			t.Fatalf("an intent of exactly %d bytes (chunked %v): %d %s", max, hide, status, body)
		}
		status, h, body := ts.sendBody("POST", "/oap/intent", contentOAP, "", append(at, ' '), hide)
		ts.limitProblem(status, h, body, 413, "body_too_large", "limit_bytes", max, "over the limit of 4096 bytes")
		// A document.
		doc := pad(t, []byte(`{"offer_id": "limit-`+strconv.FormatBool(hide)+`"}`), max)
		if status, _, body := ts.sendBody("POST", "/storage/documents", contentJSON, tokenB, doc, hide); status/100 != 2 {
			t.Fatalf("a document of exactly %d bytes (chunked %v): %d %s", max, hide, status, body)
		}
		status, h, body = ts.sendBody("POST", "/storage/documents", contentJSON, tokenB, append(doc, ' '), hide)
		ts.limitProblem(status, h, body, 413, "body_too_large", "limit_bytes", max, "over the limit of 4096 bytes")
		// NDJSON and imports have their own, larger limit.
		nd := pad(t, []byte(`{"offer_id": "nd-`+strconv.FormatBool(hide)+`"}`+"\n"+`{"offer_id": "nd2"}`), importMax)
		if status, _, body := ts.sendBody("POST", "/storage/documents", contentNDJSON, tokenB, nd, hide); status/100 != 2 {
			t.Fatalf("NDJSON of exactly %d bytes (chunked %v): %d %s", importMax, hide, status, body)
		}
		status, h, body = ts.sendBody("POST", "/storage/documents", contentNDJSON, tokenB, append(nd, ' '), hide)
		ts.limitProblem(status, h, body, 413, "body_too_large", "limit_bytes", importMax, "over the limit of 8192 bytes")
		status, h, body = ts.sendBody("POST", "/storage/import", contentJSON, tokenA, pad(t, []byte(`{}`), importMax+1), hide)
		ts.limitProblem(status, h, body, 413, "body_too_large", "limit_bytes", importMax, "over the limit of 8192 bytes")
	}
	// The body limit is the intent limit: raised past aql's default
	// (1 MiB), it lets larger intents through rather than answering 400.
	big := aql.DefaultMaxBytes + 4096
	ts = startServer(t, func(c *Config) { c.MaxBodyBytes = int64(big) })
	if status, _, body := ts.sendBody("POST", "/oap/intent", contentOAP, "", pad(t, probeIntent, big), false); status != 200 {
		t.Fatalf("an intent of %d bytes under --max-body %d: %d %.300s", big, big, status, body)
	}
}

// fullSetIntent is a full_set intent over every offer.
var fullSetIntent = intent("commercial", `{"path": "/offer_id", "operator": "exists", "value": true}`,
	`"resolution_policy": "full_set",`)

func TestLimitResultsPerPage(t *testing.T) {
	for _, max := range []int{0, 3} { // 0: the default
		ts := startServer(t, func(c *Config) { c.MaxPageSize = max })
		if max == 0 {
			max = DefaultMaxPageSize
		}
		for i := range 4 {
			ts.putPublic(`{"offer_id": "page-` + strconv.Itoa(i) + `"}`)
		}
		path := "/oap/intent?page_size=" + strconv.Itoa(max)
		status, _, body := ts.sendBody("POST", path, contentOAP, "", fullSetIntent, false)
		if status != 200 {
			t.Fatalf("page_size=%d: %d %s", max, status, body)
		}
		if got, want := len(decode(t, body)["candidates"].([]any)), min(max, 4); got != want {
			t.Fatalf("page_size=%d gave %d candidates, want %d", max, got, want)
		}
		path = "/oap/intent?page_size=" + strconv.Itoa(max+1)
		status, h, body := ts.sendBody("POST", path, contentOAP, "", fullSetIntent, false)
		doc := ts.limitProblem(status, h, body, 400, "bad_parameter", "limit", max,
			fmt.Sprintf("from 1 to %d, the limit of this server (--max-page-size %d)", max, max))
		if doc["parameter"] != "page_size" {
			t.Errorf("parameter %v, want page_size", doc["parameter"])
		}
		// Streamed answers read the same parameter.
		req, _ := http.NewRequest("POST", ts.url+path, bytes.NewReader(fullSetIntent))
		req.Header.Set("Content-Type", contentOAP)
		req.Header.Set("Accept", contentSSE)
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ts.limitProblem(resp.StatusCode, resp.Header, b, 400, "bad_parameter", "limit", max, "--max-page-size")
	}
}

func TestLimitRejectedRecords(t *testing.T) {
	const max = 2
	ts := startServer(t, func(c *Config) { c.MaxRejected = max })
	// Offers without quality signals match the constraint (so the planner
	// passes them on) and fail the quality floor: rejected.
	boots := intent("commercial", `{"path": "/category", "operator": "eq", "value": "boots"}`,
		`"quality_floor": {"performance_score": 0.5},`)
	rejected := func() ([]any, string) {
		t.Helper()
		status, _, body := ts.sendBody("POST", "/oap/intent", contentOAP, "", boots, false)
		if status != 200 {
			t.Fatalf("intent: %d %s", status, body)
		}
		ts.verified(body)
		rej, _ := decode(t, body)["rejected"].([]any)
		if len(rej) == 0 {
			return nil, ""
		}
		last := rej[len(rej)-1].(map[string]any)["decision_record"].(map[string]any)
		expl, _ := last["explanation"].(string)
		return rej, expl
	}
	for i := range max {
		ts.putPublic(`{"offer_id": "boot-` + strconv.Itoa(i) + `", "category": "boots"}`)
	}
	if rej, expl := rejected(); len(rej) != max || strings.Contains(expl, "MaxRejected") {
		t.Fatalf("%d rejected, cap %d: %d listed, last says %q", max, max, len(rej), expl)
	}
	ts.putPublic(`{"offer_id": "boot-last", "category": "boots"}`)
	want := fmt.Sprintf("%d rejected candidates in all, %d listed (MaxRejected cap %d)", max+1, max, max)
	if rej, expl := rejected(); len(rej) != max || !strings.Contains(expl, want) {
		t.Fatalf("%d rejected, cap %d: %d listed, last says %q; want %q", max+1, max, len(rej), expl, want)
	}
}

// holdIntent is probeIntent under an id the query hook of
// TestLimitConcurrentQueries holds in its slot.
var holdIntent = bytes.Replace(probeIntent, []byte("urn:oap:intent:test-discovery"), []byte("urn:oap:intent:hold"), 1)

// holdQueries makes queries with holdIntent's id wait, in their slots,
// until release is called; each held query's status arrives on the
// channel holdQuery returns.
func (ts *testServer) holdQueries() (release func()) {
	ch := make(chan struct{})
	ts.srv.queryHook = func(in *aql.Intent) {
		if in.IntentID == "urn:oap:intent:hold" {
			<-ch
		}
	}
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	ts.t.Cleanup(release)
	return release
}

func (ts *testServer) holdQuery() <-chan int {
	done := make(chan int, 1)
	go func() {
		status, _, _ := ts.sendBody("POST", "/oap/intent", contentOAP, "", holdIntent, false)
		done <- status
	}()
	return done
}

// waitQueries waits until n queries hold slots.
func (ts *testServer) waitQueries(n int64) {
	ts.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for ts.srv.gates.queries.Load() != n {
		if time.Now().After(deadline) {
			ts.t.Fatalf("%d queries running, want %d", ts.srv.gates.queries.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLimitConcurrentQueries(t *testing.T) {
	const max = 2
	ts := startServer(t, func(c *Config) { c.MaxQueries = max })
	release := ts.holdQueries()
	// Clients still sending their bodies hold no slot: with two of them
	// waiting, queries are served.
	for range max {
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /oap/intent HTTP/1.1\r\nHost: test\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", contentOAP, len(probeIntent))
	}
	for range max {
		if status, _, body := ts.sendBody("POST", "/oap/intent", contentOAP, "", probeIntent, false); status != 200 {
			t.Fatalf("query while slow bodies are being sent: %d %s", status, body)
		}
	}
	first := ts.holdQuery()
	ts.waitQueries(1)
	// With one query running, a second is the limit: served.
	if status, _, body := ts.sendBody("POST", "/oap/intent", contentOAP, "", probeIntent, false); status != 200 {
		t.Fatalf("query %d of %d: %d %s", max, max, status, body)
	}
	second := ts.holdQuery()
	ts.waitQueries(max)
	// A third is refused, for every caller, and says when to retry.
	for _, token := range []string{"", tokenA} {
		status, h, body := ts.sendBody("POST", "/oap/intent", contentOAP, token, probeIntent, false)
		ts.limitProblem(status, h, body, 503, "too_many_queries", "limit", max,
			"2 queries are running, the limit of this server (--max-queries 2)")
		if h.Get("Retry-After") != "1" {
			t.Errorf("Retry-After %q, want 1", h.Get("Retry-After"))
		}
	}
	// Other routes are not queries.
	if status, _, body := ts.sendBody("GET", "/.well-known/did.json", "", "", nil, false); status != 200 {
		t.Fatalf("did.json while queries are at the limit: %d %s", status, body)
	}
	// The held queries complete, and their slots come back.
	release()
	if s1, s2 := <-first, <-second; s1 != 200 || s2 != 200 {
		t.Fatalf("held queries answered %d and %d", s1, s2)
	}
	ts.waitQueries(0)
	// A subscription posted as an intent is a stream: it takes no slot.
	sub, err := ts.client("").StreamIntent(context.Background(), shoeSubscription(5))
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if ev := nextEvent(t, sub); ev.Name != "subscribed" {
		t.Fatalf("first event %s", ev.Name)
	}
	ts.waitQueries(0)
	for range max {
		if status, _, body := ts.sendBody("POST", "/oap/intent", contentOAP, "", probeIntent, false); status != 200 {
			t.Fatalf("query while a subscription is open: %d %s", status, body)
		}
	}
}

func TestLimitSubscriptionsPerCaller(t *testing.T) {
	const max = 2
	ts := startServer(t, func(c *Config) { c.MaxSubscriptions = max })
	var streams []*client.Stream
	for range max {
		streams = append(streams, ts.subscribed(tokenA, shoeSubscription(5), ""))
	}
	// One past the limit, by either endpoint.
	for _, path := range []string{"/storage/subscribe", "/oap/intent"} {
		status, h, body := ts.sendBody("POST", path, contentOAP, tokenA, shoeSubscription(5), false)
		ts.limitProblem(status, h, body, 429, "too_many_subscriptions", "limit", max,
			"this caller has 2 subscription streams open, the limit per caller (--max-subscriptions 2)")
		if h.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After")
		}
	}
	// The limit is per caller: another tenant, and an anonymous caller,
	// still subscribe.
	ts.subscribed(tokenB, shoeSubscription(5), "")
	ts.subscribed("", shoeSubscription(5), "")
	// Closing a stream frees its place.
	streams[0].Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := ts.client(tokenA).Subscribe(context.Background(), shoeSubscription(5), "")
		if err == nil {
			s.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no subscription for tenant A after one of its streams closed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestLimitEventsPerMinute(t *testing.T) {
	for _, max := range []int{0, 10} { // 0: the default
		ts := startServer(t, func(c *Config) { c.MaxEventsPerMinute = max })
		if max == 0 {
			max = DefaultMaxEventsPerMinute
		}
		s, err := ts.client("").Subscribe(context.Background(), shoeSubscription(max), "")
		if err != nil {
			t.Fatalf("rate %d: %v", max, err)
		}
		ev := nextEvent(t, s)
		s.Close()
		if ev.Name != "subscribed" || fmt.Sprint(decode(t, ev.Data)["max_event_rate_per_minute"]) != strconv.Itoa(max) {
			t.Fatalf("rate %d: %s %s", max, ev.Name, ev.Data)
		}
		status, h, body := ts.sendBody("POST", "/storage/subscribe", contentOAP, "", shoeSubscription(max+1), false)
		doc := ts.checkProblem(status, h, body, 400, "invalid_intent")
		problems, _ := doc["problems"].([]any)
		if len(problems) != 1 {
			t.Fatalf("problems %v, want one", doc["problems"])
		}
		p := problems[0].(map[string]any)
		want := fmt.Sprintf("max_event_rate_per_minute %d is over the limit of %d events per minute", max+1, max)
		if p["pointer"] != "/max_event_rate_per_minute" || !strings.Contains(fmt.Sprint(p["message"]), want) ||
			!strings.Contains(fmt.Sprint(p["message"]), "--max-events-per-minute") {
			t.Fatalf("problem %v, want %q at /max_event_rate_per_minute naming the flag", p, want)
		}
	}
	// The rate is then a sliding window: max events in any minute, the
	// next one when the oldest is a minute old.
	w := newEventWindow(3)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		if w.free(t0.Add(time.Duration(i)*time.Second)) != 3-i {
			t.Fatalf("free before event %d", i+1)
		}
		w.take(t0.Add(time.Duration(i) * time.Second))
	}
	if w.free(t0.Add(59*time.Second)) != 0 || !w.nextFree(t0.Add(59*time.Second)).Equal(t0.Add(time.Minute)) {
		t.Fatalf("a full window: free %d, next at %v", w.free(t0.Add(59*time.Second)), w.nextFree(t0.Add(59*time.Second)))
	}
	if w.free(t0.Add(time.Minute)) != 1 {
		t.Fatalf("a minute after the first event, %d free, want 1", w.free(t0.Add(time.Minute)))
	}
}

// putLimit puts doc as tenant B and checks the answer: stored when ok,
// else a 400 invalid_document whose detail holds every one of parts.
func (ts *testServer) putLimit(doc []byte, ok bool, parts ...string) {
	ts.t.Helper()
	status, h, body := ts.sendBody("POST", "/storage/documents", contentJSON, tokenB, doc, false)
	if ok {
		if status/100 != 2 {
			ts.t.Fatalf("a document at the limit: %d %.300s", status, body)
		}
		return
	}
	d := ts.checkProblem(status, h, body, 400, "invalid_document")
	for _, p := range parts {
		if !strings.Contains(fmt.Sprint(d["detail"]), p) {
			ts.t.Errorf("detail %q does not say %q", d["detail"], p)
		}
	}
}

// TestLimitNestingDepth: over HTTP, canon's depth limit (store.Options
// .Limits, default 64) is a 400 naming the limit and where it was crossed.
func TestLimitNestingDepth(t *testing.T) {
	ts := startServer(t, nil)
	nest := func(depth int) []byte { // {"offer_id": ..., "x": [[...]]}: the object is level 1
		return []byte(`{"offer_id": "deep-` + strconv.Itoa(depth) + `", "x": ` +
			strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`)
	}
	ts.putLimit(nest(64), true)
	ts.putLimit(nest(65), false, "nesting depth 65 is over the limit of 64 (Limits.MaxDepth)", "(at /x"+strings.Repeat("/0", 63)+")")
}

// TestLimitMembersPerObject: over HTTP, canon's members limit (default
// 10,000) is a 400 naming the limit and the first member past it.
func TestLimitMembersPerObject(t *testing.T) {
	ts := startServer(t, nil)
	obj := func(n int) []byte { // offer_id and n-1 more members
		var b strings.Builder
		b.WriteString(`{"offer_id": "wide-` + strconv.Itoa(n) + `"`)
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, `, "m%05d": 0`, i)
		}
		b.WriteString("}")
		return []byte(b.String())
	}
	ts.putLimit(obj(10000), true)
	ts.putLimit(obj(10001), false, "object member 10001 is over the limit of 10000 members per object (Limits.MaxMembers)")
}

// TestLimitQueriesPerCaller: one caller (here anonymous, counted by its
// address) cannot take every query slot; another caller is still served.
func TestLimitQueriesPerCaller(t *testing.T) {
	const perCaller = 2
	ts := startServer(t, func(c *Config) { c.MaxQueries, c.MaxQueriesPerCaller = 4, perCaller })
	release := ts.holdQueries()
	held := []<-chan int{ts.holdQuery(), ts.holdQuery()}
	ts.waitQueries(perCaller)
	status, h, body := ts.sendBody("POST", "/oap/intent", contentOAP, "", probeIntent, false)
	ts.limitProblem(status, h, body, 429, "too_many_caller_queries", "limit", perCaller,
		"this caller has 2 queries running, the limit per caller (--max-queries-per-caller 2)")
	if h.Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q, want 1", h.Get("Retry-After"))
	}
	for _, token := range []string{tokenA, tokenB} {
		if status, _, body := ts.sendBody("POST", "/oap/intent", contentOAP, token, probeIntent, false); status != 200 {
			t.Fatalf("another caller while the first holds its share: %d %s", status, body)
		}
	}
	release()
	for _, ch := range held {
		if s := <-ch; s != 200 {
			t.Fatalf("held query answered %d", s)
		}
	}
	ts.waitQueries(0)
	if status, _, body := ts.sendBody("POST", "/oap/intent", contentOAP, "", probeIntent, false); status != 200 {
		t.Fatalf("the caller after its queries ended: %d %s", status, body)
	}
}
