package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// The change feed over HTTP: a subscription intent, posted to
// /storage/subscribe (or /oap/intent), is answered with server-sent
// events as one store's server answers it: `subscribed`, then a
// `candidate` for each put the reader may see that the intent accepts and
// a `deleted` for each delete of one this stream sent, each signed over
// RFC 8785, then `end` when the intent's validity window closes. The
// shards' streams are fanned in (Node.Subscribe); a put is judged by a
// replica of its shard (request op "match"), which holds the document.
//
// A new subscription starts at every shard's last sequence, so it sees
// the changes made after it. An event's id is the feed's cursor after it:
// every shard's last sequence, sealed with the node's key, so any node of
// the cluster resumes it (Last-Event-ID, or ?last_event_id=) with no gap and no
// duplicate; after a reconnect, the delete of a visible document put
// before it is sent with match_unknown, as one store's server sends it,
// since the client may hold it. What a store's server does and this feed
// does not yet: the max_event_rate_per_minute window (and its coalesced
// events), grants and revokes as events.

const feedCursorPurpose = "cluster change feed cursor"

// feedHeartbeat is how long a quiet feed waits before a heartbeat.
const feedHeartbeat = 15 * time.Second

func (h *handler) subscribe(w http.ResponseWriter, r *http.Request) {
	r, body, ok := h.request(w, r)
	if !ok {
		return
	}
	in, err := aql.Parse(body, nil)
	if err == nil && in.Category != aql.CategorySubscription {
		err = fmt.Errorf("category is %q; a subscription intent has category subscription and max_event_rate_per_minute", in.Category)
	}
	if err != nil {
		fail(w, err)
		return
	}
	h.feed(w, r, in, body)
}

// feed runs one subscription stream until the client leaves or the
// intent's validity ends.
func (h *handler) feed(w http.ResponseWriter, r *http.Request, in *aql.Intent, intent []byte) {
	n := h.n
	if err := in.CheckValidity(n.o.Now()); err != nil {
		fail(w, err)
		return
	}
	reader, err := query.Reader(in, &query.Options{Keys: n.o.Keys, Principal: store.Principal(r.Context()), IssuerProof: true})
	if err != nil {
		fail(w, err)
		return
	}
	cursor, err := h.resumeCursor(r)
	if err != nil {
		problem(w, http.StatusBadRequest, "bad last event id", err.Error(), nil)
		return
	}
	resumed := cursor != nil
	if !resumed {
		if cursor, err = n.heads(r.Context()); err != nil {
			fail(w, err)
			return
		}
	}
	f := &feedStream{n: n, in: in, intent: intent, reader: reader, cursor: cursor, sent: map[string]string{},
		resumed: resumed, judged: map[string]bool{},
		kinds: map[canon.Kind]bool{}, rc: http.NewResponseController(w), w: w}
	for _, k := range query.CategoryKinds(in.Category) {
		f.kinds[k] = true
	}
	f.run(store.WithPrincipal(r.Context(), reader))
}

// resumeCursor opens Last-Event-ID (or ?last_event_id=); nil when the
// request has none.
func (h *handler) resumeCursor(r *http.Request) (map[int]uint64, error) {
	id := r.Header.Get("Last-Event-ID")
	if id == "" {
		id = r.URL.Query().Get("last_event_id")
	}
	if id == "" {
		return nil, nil
	}
	cursor := map[int]uint64{}
	b, err := h.n.o.Signer.Sealer(feedCursorPurpose).Open(id)
	if err == nil {
		err = json.Unmarshal(b, &cursor)
	}
	if err != nil {
		return nil, fmt.Errorf("Last-Event-ID %q is not an event id of this cluster; send the id of the last event received, or subscribe again without it", id)
	}
	return cursor, nil
}

// heads returns every shard's last sequence: a new subscription starts
// there, and sees the changes made after it, as one store's does.
func (n *Node) heads(ctx context.Context) (map[int]uint64, error) {
	out := map[int]uint64{}
	for i := range n.o.Shards {
		s, err := n.stream(ctx, i)
		if err != nil {
			return nil, err
		}
		info, err := s.Info(ctx)
		if err != nil {
			return nil, &ShardError{Shard: i, Err: err}
		}
		out[i] = info.State.LastSeq
	}
	return out, nil
}

// feedStream is one open stream; one goroutine runs it.
type feedStream struct {
	n      *Node
	in     *aql.Intent
	intent []byte
	reader string
	kinds  map[canon.Kind]bool
	cursor map[int]uint64    // shard → the last sequence dealt with
	sent   map[string]string // content id → candidate id, of the candidates sent
	// resumed is set on a feed resumed from an event id; judged holds
	// the content ids whose put this connection judged.
	resumed bool
	judged  map[string]bool
	id      string
	nDec    int
	w       http.ResponseWriter
	rc      *http.ResponseController
}

func (f *feedStream) run(ctx context.Context) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	f.id = "urn:aqlstore:subscription:" + hex.EncodeToString(b[:])
	_ = f.rc.SetReadDeadline(time.Time{}) // the body is read; a deadline would end the stream
	f.w.Header().Set("Content-Type", "text/event-stream")
	f.w.Header().Set("X-Accel-Buffering", "no")
	f.w.WriteHeader(http.StatusOK)
	doc := f.header()
	doc["last_event_id"] = f.eventID()
	doc["heartbeat_seconds"] = canon.Number(strconv.Itoa(int(feedHeartbeat.Seconds())))
	if err := f.write("retry: 2000\n\n", "subscribed", "", doc); err != nil {
		return
	}
	ctx, cancel := context.WithDeadline(ctx, f.in.Validity.To)
	defer cancel()
	changes := make(chan Change)
	errs := make(chan error, 1)
	go func() {
		for c, err := range f.n.Subscribe(ctx, f.cursor) {
			if err != nil {
				errs <- err
				return
			}
			select {
			case changes <- c:
			case <-ctx.Done():
				return
			}
		}
	}()
	beat := time.NewTicker(feedHeartbeat)
	defer beat.Stop()
	for {
		var err error
		select {
		case c := <-changes:
			err = f.change(ctx, c)
		case <-beat.C:
			err = f.write(": heartbeat\nid: "+f.eventID()+"\n\n", "", "", nil)
		case err = <-errs:
		}
		if errors.Is(err, context.DeadlineExceeded) && f.n.o.Now().After(f.in.Validity.To) {
			doc := f.header()
			doc["reason"] = "the intent's validity window ended"
			doc["last_event_id"] = f.eventID()
			_ = f.write("", "end", f.eventID(), doc)
			return
		}
		if err != nil {
			if ctx.Err() == nil {
				f.n.o.Logf("cluster: subscription %s ended: %v", f.id, err)
			}
			return
		}
	}
}

// change sends the event c makes for the reader, if any, and moves the
// cursor past it either way.
func (f *feedStream) change(ctx context.Context, c Change) error {
	doc, name, err := f.judge(ctx, c)
	if err != nil {
		return err
	}
	f.cursor[c.Shard] = c.Seq
	if doc == nil {
		return nil
	}
	id := f.eventID()
	doc["event_id"] = id
	full := f.header()
	for k, v := range doc {
		full[k] = v
	}
	return f.write("", name, id, full)
}

// judge returns the event c makes: a candidate for a put the intent
// accepts, a deleted for the delete of a document sent; nil for anything
// else.
func (f *feedStream) judge(ctx context.Context, c Change) (map[string]any, string, error) {
	if !f.kinds[c.Kind] {
		return nil, "", nil
	}
	switch c.Op {
	case opPut:
		f.judged[c.ID] = true
		rep, err := f.n.ask(ctx, c.Shard, &request{Op: "match", Principal: f.reader, After: c.Seq, ID: c.ID,
			Owner: c.Owner, Kind: c.Kind, Intent: f.intent, At: f.n.o.Now()})
		if errors.Is(err, store.ErrNotFound) {
			return nil, "", nil // deleted since, or skipped by the replicas
		}
		if err != nil || len(rep.Candidates) == 0 {
			return nil, "", err
		}
		m, err := decodeMember(rep.Candidates[0].Doc)
		if err != nil {
			return nil, "", err
		}
		rec, _ := m["decision_record"].(map[string]any)
		f.nDec++
		rec["decision_id"] = fmt.Sprintf("urn:oap:decision:%s-%d", f.id, f.nDec)
		f.sent[c.ID] = rep.Candidates[0].Key.ID
		return map[string]any{"op": c.Op, "kind": string(c.Kind), "content_id": c.ID, "candidate": m}, "candidate", nil
	case opDelete:
		doc := map[string]any{"op": c.Op, "kind": string(c.Kind), "content_id": c.ID}
		if cid, ok := f.sent[c.ID]; ok {
			delete(f.sent, c.ID)
			doc["candidate_id"] = cid
		} else if f.resumed && !f.judged[c.ID] {
			// Put before the client reconnected: it may hold it, and the
			// bytes to judge it are gone, so it is told to drop it if so.
			doc["match_unknown"] = true
		} else {
			return nil, "", nil
		}
		return doc, "deleted", nil
	}
	return nil, "", nil
}

func (f *feedStream) header() map[string]any {
	return map[string]any{"subscription_id": f.id, "intent_id": f.in.IntentID, "resolver_did": f.n.o.Signer.DID(),
		"evaluated_at": f.n.o.Now().UTC().Format(time.RFC3339Nano)}
}

// eventID seals the cursor.
func (f *feedStream) eventID() string {
	b, _ := json.Marshal(f.cursor)
	return f.n.o.Signer.Sealer(feedCursorPurpose).SealFresh(b)
}

// write sends raw, then the event name with id and doc signed (when name
// is set), and flushes.
func (f *feedStream) write(raw, name, id string, doc map[string]any) error {
	buf := []byte(raw)
	if name != "" {
		signed, _, err := f.n.o.Signer.AppendSigned(nil, doc)
		if err != nil {
			return err
		}
		if id != "" {
			buf = append(buf, "id: "+id+"\n"...)
		}
		buf = append(buf, "event: "+name+"\ndata: "...)
		buf = append(append(buf, signed...), "\n\n"...)
	}
	// Each write moves the deadline: a healthy stream outlives the
	// server's WriteTimeout, a client that stops reading does not.
	_ = f.rc.SetWriteDeadline(time.Now().Add(time.Minute))
	if _, err := f.w.Write(buf); err != nil {
		return err
	}
	return f.rc.Flush()
}

// match judges the document a put change names, as the reader, against
// the intent (query.Matcher): the candidate it makes, or none.
func (r *replica) match(ctx context.Context, req *request) (*reply, error) {
	in, err := aql.Parse(req.Intent, nil)
	if err != nil {
		return nil, fmt.Errorf("intent: %w", err)
	}
	id, err := canon.ParseContentID(req.ID)
	if err != nil {
		return nil, err
	}
	d, err := r.s.Get(ctx, store.Ref{ID: id})
	if err != nil {
		return nil, err
	}
	if d.Owner != req.Owner || d.Kind != req.Kind {
		return nil, fmt.Errorf("%w: %s", store.ErrNotFound, id) // the reader sees another copy of the content
	}
	c, _, err := query.NewMatcher(in, req.At).Match(d)
	if c == nil || err != nil {
		return &reply{}, err
	}
	b, err := query.AppendCandidate(nil, c)
	if err != nil {
		return nil, err
	}
	return &reply{Candidates: []shardCandidate{{Key: rankKey{ID: c.CandidateID}, Doc: b}}}, nil
}
