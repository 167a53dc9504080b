package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/server/client"
	"github.com/aqlstore/aqlstore/store"
)

// The read paths, intents and subscriptions of TestTenantIsolationProperty
// (isolation_test.go).

// Intents.

// drawLeaf draws one constraint; some name keys and markers of stored
// documents, whoever owns them.
func (w *isoWorld) drawLeaf(t *rapid.T) string {
	leaf := func(path, op string, v any) string {
		b, _ := json.Marshal(map[string]any{"path": path, "operator": op, "value": v})
		return string(b)
	}
	switch rapid.IntRange(0, 13).Draw(t, "leaf") {
	case 0:
		return leaf("/category", "eq", rapid.SampledFrom(isoCategories).Draw(t, "v"))
	case 1:
		return leaf("/price", rapid.SampledFrom([]string{"gte", "lt"}).Draw(t, "op"), rapid.SampledFrom(isoPrices).Draw(t, "v"))
	case 2:
		return leaf("/inventory/available", "gt", rapid.IntRange(0, 2).Draw(t, "v"))
	case 3:
		return leaf("/tags", "contains", rapid.SampledFrom(isoTags).Draw(t, "v"))
	case 4:
		return leaf("/tags/*", "eq", rapid.SampledFrom(isoTags).Draw(t, "v"))
	case 5:
		return leaf("/tags/0", "eq", rapid.SampledFrom(isoTags).Draw(t, "v"))
	case 6:
		return leaf("/note", "exists", rapid.Bool().Draw(t, "v"))
	case 7:
		return leaf("/category", "in", []string{"shoes", rapid.SampledFrom(isoCategories).Draw(t, "v")})
	case 8:
		return leaf("/category", "matches", "^b")
	case 9:
		return leaf("/record/category", "eq", rapid.SampledFrom(isoCategories).Draw(t, "v"))
	case 10:
		return leaf("/price", "lt", 50)
	case 11:
		return leaf("/**", "eq", rapid.SampledFrom(isoCategories).Draw(t, "v"))
	}
	if len(w.docs) == 0 {
		return leaf("/note", "exists", true)
	}
	d := rapid.SampledFrom(w.docs).Draw(t, "probe")
	if d.key != "" && isoKeyPrefix[string(d.kind)] != "" {
		return leaf("/"+isoKeyPrefix[string(d.kind)], "eq", d.key)
	}
	return leaf("/note", "eq", d.tokens[1]) // the marker
}

func (w *isoWorld) drawConstraint(t *rapid.T, depth int) string {
	if depth >= 2 || rapid.IntRange(0, 2).Draw(t, "combine") == 0 {
		return w.drawLeaf(t)
	}
	switch rapid.IntRange(0, 2).Draw(t, "node") {
	case 0:
		return `{"not": ` + w.drawConstraint(t, depth+1) + `}`
	case 1:
		return `{"all_of": [` + w.drawConstraint(t, depth+1) + `, ` + w.drawConstraint(t, depth+1) + `]}`
	}
	return `{"any_of": [` + w.drawConstraint(t, depth+1) + `, ` + w.drawConstraint(t, depth+1) + `]}`
}

var isoProjections = []string{`{"include": ["/"]}`, `{"include": ["/category", "/note"]}`,
	`{"include": ["/inventory/available"]}`, `{"include": ["/"], "exclude": ["/note"]}`}

// isoIntent is an unsigned intent valid around now; its issuer's key does
// not resolve, so it reads as the caller.
func isoIntent(category, constraints, projection, extra string) []byte {
	now := time.Now().UTC()
	return []byte(`{"intent_id": "urn:oap:intent:isolation", "issuer_did": "did:web:probe.example",
		"category": "` + category + `", "constraints": ` + constraints + `, "projection": ` + projection + `,
		"validity": {"from": "` + now.Add(-time.Hour).Format(time.RFC3339) + `", "to": "` + now.Add(time.Hour).Format(time.RFC3339) + `"},
		` + extra + ` "signature": {"alg": "EdDSA", "value": "not-a-real-signature"}}`)
}

func (w *isoWorld) drawIntent(t *rapid.T) ([]byte, string) {
	category := rapid.SampledFrom([]string{"commercial", "discovery", "knowledge", "delegation"}).Draw(t, "category")
	policy := rapid.SampledFrom([]string{"single_best", "ranked_set", "full_set", "full_set"}).Draw(t, "policy")
	return isoIntent(category, w.drawConstraint(t, 0), rapid.SampledFrom(isoProjections).Draw(t, "projection"),
		`"resolution_policy": "`+policy+`",`), policy
}

// Subscriptions.

// isoStream is one event stream: a subscription or a streamed query.
type isoStream struct {
	s    *client.Stream
	req  []byte // the intent, which events may echo
	last string
}

func (w *isoWorld) subscribe(srv *isoServer, reader string, body []byte, lastID string) *isoStream {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), isoWait)
	s, err := client.New(srv.url, w.token(reader)).Subscribe(ctx, body, lastID)
	if err != nil {
		cancel()
		w.t.Fatalf("subscribe to %s as %s: %v", srv.name, reader, err)
	}
	st := &isoStream{s: s, req: body}
	w.t.Cleanup(func() { s.Close(); cancel() })
	if ev := w.next(reader, st); !strings.HasPrefix(ev, "subscribed ") {
		w.t.Fatalf("%s as %s: first event %s, want subscribed", srv.name, reader, ev)
	}
	return st
}

// next reads one event as "name normalized-data", scanned for what reader
// may not see.
func (w *isoWorld) next(reader string, st *isoStream) string {
	w.t.Helper()
	ev, err := st.s.Next()
	if err != nil {
		w.t.Fatalf("stream as %s: %v", reader, err)
	}
	w.scanBytes(reader, "event "+ev.Name, st.req, ev.Data, []byte(ev.ID))
	st.last = st.s.LastEventID()
	w.stats.events++
	return ev.Name + " " + isoNorm(ev.Data)
}

// collect reads events until the one carrying marker. The subscription's
// rate (6,000 a minute) is above anything a world sends, so no change is
// coalesced and the events match one for one.
func (w *isoWorld) collect(reader string, st *isoStream, marker string) []string {
	w.t.Helper()
	var out []string
	for {
		ev := w.next(reader, st)
		out = append(out, ev)
		if strings.Contains(ev, strconv.Quote(marker)) {
			return out
		}
	}
}

// isoPair is a reader's stream from the main server and from its mirror.
type isoPair struct{ main, mirror *isoStream }

// subscriptions subscribes every reader to the main server and to its
// mirror, makes more changes, and requires the same events from both;
// then the streams are dropped, more changes made, and the streams
// resumed with Last-Event-ID (each server's own), again with the same
// events from both.
func (w *isoWorld) subscriptions() {
	body := isoIntent("subscription", `{"any_of": [`+w.drawConstraint(w.t, 1)+`,
		{"path": "/sentinel", "operator": "exists", "value": true}]}`, `{"include": ["/"]}`,
		`"max_event_rate_per_minute": 6000,`)
	streams := map[string]*isoPair{}
	for _, r := range w.readers {
		streams[r] = &isoPair{w.subscribe(w.main, r, body, ""), w.subscribe(w.mirrors[r], r, body, "")}
	}
	w.streams = streams
	w.history(rapid.IntRange(2, 8).Draw(w.t, "changes"))
	w.sync("live")
	// Leave, let changes happen, come back where each stream was.
	last := w.closeStreams()
	w.history(rapid.IntRange(1, 6).Draw(w.t, "away"))
	resumed := map[string]*isoPair{}
	for _, r := range w.readers {
		resumed[r] = &isoPair{w.subscribe(w.main, r, body, last[r].main.last), w.subscribe(w.mirrors[r], r, body, last[r].mirror.last)}
	}
	w.streams = resumed
	w.history(rapid.IntRange(2, 8).Draw(w.t, "changes"))
	w.sync("resumed")
	w.closeStreams()
}

// sync puts a sentinel and requires every reader's two streams to send
// the same events up to it. A stream judges a put when it reaches it, so
// a delete waits for a sync: were the document gone by then, the stream
// would skip it, and how far a stream lags is timing, not isolation.
func (w *isoWorld) sync(what string) {
	marker := w.sentinel()
	for _, r := range w.readers {
		p := w.streams[r]
		got, want := w.collect(r, p.main, marker), w.collect(r, p.mirror, marker)
		if !slices.Equal(got, want) {
			w.t.Fatalf("subscription (%s) as %s: the events depend on documents the reader may not see\n"+
				"main:\n%s\nmirror:\n%s", what, r, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// closeStreams closes the open streams and returns them.
func (w *isoWorld) closeStreams() map[string]*isoPair {
	closed := w.streams
	for _, p := range closed {
		p.main.s.Close()
		p.mirror.s.Close()
	}
	w.streams = nil
	return closed
}

// Read paths.

// readPaths asks every read path as reader.
func (w *isoWorld) readPaths(reader string) {
	for range 3 {
		w.queries(reader)
	}
	w.library(reader)
	w.documents(reader)
	w.aidpReads(reader)
	w.ask(reader, "GET", pathExport, nil)
	w.ask(reader, "GET", pathExport+"?visibility=public", nil) // public writers only
	// The metrics count every tenant (operators only): the status must
	// agree, the body only be free of what the reader may not see.
	got := w.main.do(w.t, "GET", "/metrics", w.token(reader), nil)
	w.scan(reader, "metrics", nil, got)
	if want := w.mirrors[reader].do(w.t, "GET", "/metrics", w.token(reader), nil); got.status != want.status {
		w.t.Fatalf("metrics as %s: %d, the mirror %d", reader, got.status, want.status)
	}
	// Another tenant's live document cannot be deleted: 404, as a
	// missing one; the mirror (which never held it) must answer the same.
	// A document whose content the reader also holds would delete the
	// reader's own copy, so those are left out.
	for _, d := range w.docs {
		if d.live && reader != store.Public && !w.seenBy(reader, d.id) {
			w.ask(reader, "DELETE", pathDocuments+"/"+d.id, nil)
			break
		}
	}
}

// seenBy reports whether some owner holding tok is visible to reader, or
// a document holding it is granted to reader.
func (w *isoWorld) seenBy(reader, tok string) bool {
	for o := range w.owners[tok] {
		if isoVisible(reader, o) {
			return true
		}
	}
	return w.grantedTokens(reader, tok)
}

// queries posts a random intent as reader: plain (every full_set page,
// following each server's own cursor) and streamed.
func (w *isoWorld) queries(reader string) {
	body, policy := w.drawIntent(w.t)
	target := pathIntent
	if policy == "full_set" {
		target += "?page_size=" + strconv.Itoa(rapid.IntRange(1, 4).Draw(w.t, "page size"))
	}
	w.pages(reader, target, body)
	w.streamed(reader, body)
}

// pages follows the full_set cursors of the main server and of the
// mirror side by side.
func (w *isoWorld) pages(reader, target string, body []byte) {
	token, ct := w.token(reader), []string{"Content-Type", contentOAP}
	mainTarget, mirrorTarget := target, target
	for page := 0; page < 200; page++ {
		got := w.main.do(w.t, "POST", mainTarget, token, body, ct...)
		w.scan(reader, "query "+target, body, got)
		want := w.mirrors[reader].do(w.t, "POST", mirrorTarget, token, body, ct...)
		w.same(reader, fmt.Sprintf("query page %d", page), body, got, want)
		next, nextMirror := isoCursor(got.body), isoCursor(want.body)
		if next == "" {
			return
		}
		sep := "&"
		if !strings.Contains(target, "?") {
			sep = "?"
		}
		mainTarget = target + sep + "cursor=" + url.QueryEscape(next)
		mirrorTarget = target + sep + "cursor=" + url.QueryEscape(nextMirror)
	}
	w.t.Fatalf("query as %s: more than 200 pages", reader)
}

func isoCursor(b []byte) string {
	var r struct {
		NextCursor string `json:"next_cursor"`
	}
	_ = json.Unmarshal(b, &r)
	return r.NextCursor
}

// streamed posts body with Accept: text/event-stream to both servers.
func (w *isoWorld) streamed(reader string, body []byte) {
	read := func(srv *isoServer) []string {
		ctx, cancel := context.WithTimeout(context.Background(), isoWait)
		defer cancel()
		s, err := client.New(srv.url, w.token(reader)).StreamIntent(ctx, body)
		if err != nil {
			w.t.Fatalf("stream from %s as %s: %v", srv.name, reader, err)
		}
		defer s.Close()
		st := &isoStream{s: s, req: body}
		var out []string
		for {
			ev := w.next(reader, st)
			out = append(out, ev)
			if strings.HasPrefix(ev, "end ") {
				return out
			}
		}
	}
	if got, want := read(w.main), read(w.mirrors[reader]); !slices.Equal(got, want) {
		w.t.Fatalf("streamed query as %s: the events depend on documents the reader may not see\n%s\nmain:\n%s\nmirror:\n%s",
			reader, body, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// library resolves as reader through the Go API, which the server does
// not expose: the plan's explain (cardinalities, exactness), and
// resolutions listing one rejection (whose explanation counts the rest),
// of a random intent and over the message kinds.
func (w *isoWorld) library(reader string) {
	body, _ := w.drawIntent(w.t)
	in, err := aql.Parse(body, nil)
	if err != nil {
		w.t.Fatalf("intent: %v\n%s", err, body)
	}
	plan := func(srv *isoServer) string {
		p, err := query.PlanIntent(srv.st, srv.ix, in, reader, query.CategoryKinds(in.Category))
		if err != nil {
			w.t.Fatalf("plan on %s: %v", srv.name, err)
		}
		return p.Shape()
	}
	if got, want := plan(w.main), plan(w.mirrors[reader]); got != want {
		w.t.Fatalf("explain as %s: the plan depends on documents the reader may not see\n%s\nmain:\n%s\nmirror:\n%s",
			reader, body, got, want)
	}
	w.resolve(reader, body, nil)
	w.resolve(reader, isoIntent("knowledge", `{"any_of": [{"path": "/payload/status", "operator": "eq", "value": "executed"},
		{"path": "/payload/envelope_id", "operator": "matches", "value": "env-[01]z"}]}`, `{"include": ["/payload/result"]}`,
		`"resolution_policy": "ranked_set",`), []canon.Kind{canon.KindAIDPEnvelope, canon.KindAIDPObservation})
}

// resolve resolves body as reader through query.Resolve on both stores,
// listing one rejection (its explanation counts the rest); kinds, when
// given, replace the category's (message kinds are only queried so).
func (w *isoWorld) resolve(reader string, body []byte, kinds []canon.Kind) {
	in, err := aql.Parse(body, nil)
	if err != nil {
		w.t.Fatalf("intent: %v\n%s", err, body)
	}
	answer := func(srv *isoServer) isoResp {
		resp, err := query.Resolve(context.Background(), srv.st, in, &query.Options{Signer: w.signer, Principal: reader,
			Index: srv.ix, MaxRejected: 1, Kinds: kinds})
		if err != nil {
			w.t.Fatalf("resolve on %s: %v", srv.name, err)
		}
		b, err := resp.MarshalJSON()
		if err != nil {
			w.t.Fatal(err)
		}
		return isoResp{status: http.StatusOK, header: http.Header{}, body: b}
	}
	got := answer(w.main)
	w.scan(reader, "query.Resolve", body, got)
	w.same(reader, "query.Resolve", body, got, answer(w.mirrors[reader]))
}

// documents gets every document ever stored, and a missing id, by id,
// projected, and by natural key.
func (w *isoWorld) documents(reader string) {
	missing := strings.Repeat("0", 63) + "1"
	w.ask(reader, "GET", pathDocuments+"/"+missing, nil)
	for _, d := range w.docs {
		w.ask(reader, "GET", pathDocuments+"/"+d.id, nil)
		if rapid.IntRange(0, 3).Draw(w.t, "project") == 0 {
			w.ask(reader, "GET", pathDocuments+"/"+d.id+"?include=/note&include=/payload/envelope_id", nil)
		}
		if d.key != "" {
			w.ask(reader, "GET", pathDocuments+"?"+url.Values{"kind": {string(d.kind)}, "key": {d.key}}.Encode(), nil)
		}
	}
}

// aidpReads asks for the observations of every envelope id of the pool,
// and pages through the inbox.
func (w *isoWorld) aidpReads(reader string) {
	for i := range 4 {
		env := fmt.Sprintf("env-%dz", i)
		w.ask(reader, "GET", pathAIDPObservations+"/"+env, nil)
		w.ask(reader, "GET", pathAIDPObservations+"/"+env+"?mode=all", nil)
	}
	limit := strconv.Itoa(rapid.IntRange(1, 4).Draw(w.t, "inbox limit"))
	token := w.token(reader)
	mainCursor, mirrorCursor := "", ""
	for page := 0; page < 200; page++ {
		target := pathAIDPInbox + "?limit=" + limit + "&cursor="
		got := w.main.do(w.t, "GET", target+url.QueryEscape(mainCursor), token, nil)
		w.scan(reader, "inbox", nil, got)
		want := w.mirrors[reader].do(w.t, "GET", target+url.QueryEscape(mirrorCursor), token, nil)
		w.same(reader, fmt.Sprintf("inbox page %d", page), nil, got, want)
		if mainCursor, mirrorCursor = isoCursor(got.body), isoCursor(want.body); mainCursor == "" {
			return
		}
	}
	w.t.Fatalf("inbox as %s: more than 200 pages", reader)
}

// cursorReplays hands one reader's first full_set cursor and first inbox
// cursor to every other reader: the answer may refuse the cursor, or
// continue the other reader's own list; it never shows what that reader
// may not see.
func (w *isoWorld) cursorReplays() {
	body := isoIntent("commercial", w.drawConstraint(w.t, 1), `{"include": ["/"]}`, `"resolution_policy": "full_set",`)
	for _, owner := range w.readers {
		first := w.main.do(w.t, "POST", pathIntent+"?page_size=1", w.token(owner), body, "Content-Type", contentOAP)
		inbox := w.main.do(w.t, "GET", pathAIDPInbox+"?limit=1", w.token(owner), nil)
		for _, r := range w.readers {
			if r == owner {
				continue
			}
			if c := isoCursor(first.body); c != "" {
				all := w.candidateIDs(w.main.do(w.t, "POST", pathIntent+"?page_size=1000", w.token(r), body, "Content-Type", contentOAP))
				target := pathIntent + "?page_size=2&cursor=" + url.QueryEscape(c)
				got := w.main.do(w.t, "POST", target, w.token(r), body, "Content-Type", contentOAP)
				w.scan(r, "replayed cursor of "+owner, body, got)
				w.window(r, "query cursor of "+owner, got, w.candidateIDs(got), all, 2)
			}
			if c := isoCursor(inbox.body); c != "" && r != store.Public {
				all := w.inboxIDs(w.main.do(w.t, "GET", pathAIDPInbox+"?limit=100", w.token(r), nil))
				got := w.main.do(w.t, "GET", pathAIDPInbox+"?limit=2&cursor="+url.QueryEscape(c), w.token(r), nil)
				w.scan(r, "replayed inbox cursor of "+owner, nil, got)
				w.window(r, "inbox cursor of "+owner, got, w.inboxIDs(got), all, 2)
			}
		}
	}
}

// window requires a page answered for another reader's cursor to be
// refused as a bad cursor, or to be a run of the reader's own list.
func (w *isoWorld) window(reader, what string, r isoResp, page, all []string, size int) {
	w.t.Helper()
	if r.status == http.StatusBadRequest {
		if code := isoCode(r.body); code != "invalid_cursor" {
			w.t.Fatalf("%s as %s: 400 %s, want invalid_cursor", what, reader, r.body)
		}
		return
	}
	if r.status != http.StatusOK {
		w.t.Fatalf("%s as %s: %d %s", what, reader, r.status, r.body)
	}
	for k := 0; k <= len(all); k++ {
		if len(page) == min(size, len(all)-k) && slices.Equal(page, all[k:k+len(page)]) {
			return
		}
	}
	w.t.Fatalf("%s as %s: %v is no run of the reader's own list %v", what, reader, page, all)
}

func isoCode(b []byte) string {
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(b, &p)
	return p.Code
}

func (w *isoWorld) candidateIDs(r isoResp) []string {
	var resp struct {
		Candidates []struct {
			ID string `json:"candidate_id"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(r.body, &resp); err != nil || r.status != http.StatusOK {
		w.t.Fatalf("query: %d %v %s", r.status, err, r.body)
	}
	out := []string{}
	for _, c := range resp.Candidates {
		out = append(out, c.ID)
	}
	return out
}

func (w *isoWorld) inboxIDs(r isoResp) []string {
	var page struct {
		Items []struct {
			Payload struct {
				Result struct {
					Marker string `json:"payment_id"`
				} `json:"result"`
			} `json:"payload"`
		} `json:"items"`
	}
	if err := json.Unmarshal(r.body, &page); err != nil || r.status != http.StatusOK {
		w.t.Fatalf("inbox: %d %v %s", r.status, err, r.body)
	}
	out := []string{}
	for _, it := range page.Items {
		out = append(out, it.Payload.Result.Marker)
	}
	return out
}
