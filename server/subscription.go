package server

import (
	"context"
	"errors"
	"iter"
	"strconv"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// maxCoalesce bounds the changes one coalesced event carries; a longer
// backlog is delivered in several.
const maxCoalesce = 100

// maxMatched bounds the documents a subscription remembers having sent,
// which is how it knows that a later delete concerns the subscriber.
const maxMatched = 100_000

// errValidityEnded ends a subscription whose intent expired.
var errValidityEnded = errors.New("server: the intent's validity window ended")

// subscription is one open subscription stream, run by one goroutine.
//
// Its cursor is the seq of the last receipt it has dealt with: every
// matching change up to it was sent, every other one skipped. Receipts
// are read from the store's chain (store.Receipts), never buffered, so a
// subscriber that is over its rate costs no memory: the backlog stays in
// the store until the window lets it out.
type subscription struct {
	s       *Server
	ctx     context.Context // reads as the subscriber
	e       *sseWriter
	in      *aql.Intent
	m       *query.Matcher
	reader  string // the principal it reads as
	grantee string // store.GranteeHash(reader): how grant and revoke receipts name it; "" for public
	kinds   map[canon.Kind]bool
	id      string
	cursor  uint64

	// After a reconnect: the head when it resumed, and the documents put
	// in the receipts replayed up to it (see missedWhileAway).
	replayTo   uint64
	replayPuts map[uint32]bool

	window    *eventWindow
	pending   bool              // matching changes wait for the window
	notified  bool              // rate_limited was sent for this wait
	matched   map[uint32]string // documents sent: number → candidate id
	decisions int
	lastWrite time.Time
}

// run sends the subscribed event, then delivers and waits in turn.
func (sub *subscription) run() error {
	doc := sub.header()
	doc["last_event_id"] = sub.s.eventID(sub.cursor)
	doc["max_event_rate_per_minute"] = canon.Number(strconv.Itoa(sub.window.limit))
	doc["heartbeat_seconds"] = canon.Number(strconv.Itoa(int(sub.s.cfg.Heartbeat.Seconds())))
	if err := sub.write("subscribed", "", doc); err != nil {
		return err
	}
	for {
		err := sub.deliver()
		if err == nil {
			err = sub.wait()
		}
		if err != nil {
			return sub.end(err)
		}
	}
}

// header is what every event of the subscription carries.
func (sub *subscription) header() map[string]any {
	return map[string]any{"subscription_id": sub.id, "intent_id": sub.in.IntentID,
		"resolver_did": sub.s.cfg.Signer.DID(), "evaluated_at": sub.s.cfg.Now().UTC().Format(time.RFC3339Nano)}
}

func (sub *subscription) write(name, id string, doc map[string]any) error {
	sub.lastWrite = time.Now()
	return sub.e.event(name, id, doc)
}

// end sends the `end` event when the server or the intent ended the
// stream; its id is the cursor, where a reconnect resumes.
func (sub *subscription) end(err error) error {
	reason := ""
	switch {
	case errors.Is(err, errValidityEnded):
		reason = "the intent's validity window ended"
	case sub.s.shuttingDown():
		reason = "the server is shutting down; reconnect with Last-Event-ID to resume"
	default:
		return err
	}
	doc := sub.header()
	doc["reason"] = reason
	id := sub.s.eventID(sub.cursor)
	doc["last_event_id"] = id
	_ = sub.write("end", id, doc)
	return nil
}

// wait blocks until the chain moves, the window frees a slot for pending
// changes, a heartbeat is due or the stream ends.
func (sub *subscription) wait() error {
	now := sub.s.cfg.Now()
	left := sub.in.Validity.To.Sub(now)
	if left <= 0 {
		return errValidityEnded
	}
	d := min(sub.s.cfg.Heartbeat-time.Since(sub.lastWrite), left)
	if sub.pending {
		d = min(d, time.Until(sub.window.nextFree(time.Now())))
	}
	if d > 0 && !sub.sleep(d) {
		return sub.ctx.Err()
	}
	if time.Since(sub.lastWrite) >= sub.s.cfg.Heartbeat {
		sub.lastWrite = time.Now()
		return sub.e.heartbeat(sub.s.eventID(sub.cursor))
	}
	return nil
}

// sleep waits d, or for the chain to pass the cursor when nothing is
// pending; false when the stream's context ended.
func (sub *subscription) sleep(d time.Duration) bool {
	ctx, cancel := context.WithTimeout(sub.ctx, d)
	defer cancel()
	if sub.pending {
		<-ctx.Done()
	} else {
		_, _ = sub.s.cfg.Store.WaitChange(ctx, sub.cursor)
	}
	return sub.ctx.Err() == nil
}

// decisionID numbers the subscription's decision records.
func (sub *subscription) decisionID() string {
	sub.decisions++
	return sub.id + "#decision-" + strconv.Itoa(sub.decisions)
}

// remember notes a document sent, so that its delete is sent too.
func (sub *subscription) remember(num uint32, candidateID string) {
	if len(sub.matched) < maxMatched {
		sub.matched[num] = candidateID
	}
}

// seed remembers the documents that match when a client resumes: it may
// hold them from before it left, so their deletes concern it. It then
// notes the head, up to which receipts are a replay. The documents come
// from the planner when the server has an index, else from a scan.
func (sub *subscription) seed() error {
	sub.replayPuts = map[uint32]bool{}
	for doc, err := range sub.visible() {
		if err != nil {
			return err
		}
		if len(sub.matched) >= maxMatched {
			break
		}
		c, _, err := sub.m.Match(doc)
		if err != nil {
			return err
		}
		if c != nil {
			sub.matched[doc.Num] = c.CandidateID
		}
	}
	sub.replayTo = sub.s.cfg.Store.Head()
	return nil
}

// visible yields the subscriber's documents of the subscription's kinds
// that may match.
func (sub *subscription) visible() iter.Seq2[*store.StoredDoc, error] {
	st := sub.s.cfg.Store
	if ix := sub.s.cfg.Index; ix != nil {
		plan, err := query.PlanIntent(st, ix, sub.in, sub.reader, query.CategoryKinds(sub.in.Category))
		if err != nil {
			return func(yield func(*store.StoredDoc, error) bool) { yield(nil, err) }
		}
		return st.Fetch(sub.ctx, plan.Candidates, plan.Sequential)
	}
	return func(yield func(*store.StoredDoc, error) bool) {
		for doc, err := range st.Scan(sub.ctx, "") {
			if (err != nil || sub.kinds[doc.Kind]) && !yield(doc, err) {
				return
			}
		}
	}
}
