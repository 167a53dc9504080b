package server

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/store"
)

// change is one matching change of the backlog, ready to send.
type change struct {
	seq  uint64
	id   string         // its event id: seq sealed (eventID)
	name string         // the event a single change is sent as: candidate or deleted
	doc  map[string]any // event_id, op, kind, content_id, and candidate or candidate_id
}

// eventIDPurpose keys the Sealer of event ids.
const eventIDPurpose = "subscription event id"

// eventID is the id of the event at the store's receipt seq: the seq
// sealed under a fresh nonce (sign.Sealer), because the store's seq counts
// every tenant's mutations, and even two equal ids would tell a subscriber
// that no one wrote between them. Last-Event-ID opens it (resumeAfter).
func (s *Server) eventID(seq uint64) string {
	return s.cfg.Signer.Sealer(eventIDPurpose).SealUint64(seq)
}

// errBatchFull stops a receipt scan at maxCoalesce changes.
var errBatchFull = errors.New("server: batch full")

// deliver sends the backlog after the cursor, as far as the window
// allows: one event per change while there is room, and the excess of a
// backlog coalesced into a single event in the last free slot. When no
// slot is free it tells the client once (rate_limited) and leaves the
// backlog in the store.
func (sub *subscription) deliver() error {
	for {
		batch, last, more, err := sub.collect()
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			sub.cursor = max(sub.cursor, last)
			sub.pending, sub.notified = false, false
			return nil
		}
		now := time.Now()
		free := sub.window.free(now)
		if free == 0 {
			return sub.capped(batch, more, now)
		}
		if err := sub.send(batch, free, now); err != nil {
			return err
		}
		if !more {
			sub.cursor = max(sub.cursor, last)
		}
		sub.pending, sub.notified = false, false
	}
}

// collect reads receipts after the cursor and returns the matching
// changes (at most maxCoalesce), the seq of the last receipt read, and
// whether it stopped before the end of the chain.
func (sub *subscription) collect() (batch []change, last uint64, more bool, err error) {
	err = sub.s.cfg.Store.Receipts(sub.ctx, sub.cursor+1, func(r *store.Receipt) error {
		last = r.Seq
		c, ok, err := sub.match(r)
		if err != nil || !ok {
			return err
		}
		batch = append(batch, c)
		if len(batch) == maxCoalesce {
			more = true
			return errBatchFull
		}
		return nil
	})
	if errors.Is(err, errBatchFull) {
		err = nil
	}
	return batch, last, more, err
}

// send writes batch with free slots left in the window.
func (sub *subscription) send(batch []change, free int, now time.Time) error {
	singles := batch
	if len(batch) > free {
		singles = batch[:free-1]
	}
	for _, c := range singles {
		doc := sub.header()
		maps.Copy(doc, c.doc)
		if err := sub.write(c.name, c.id, doc); err != nil {
			return err
		}
		sub.window.take(now)
		sub.cursor = c.seq
	}
	if rest := batch[len(singles):]; len(rest) > 0 {
		return sub.sendCoalesced(rest, now)
	}
	return nil
}

// sendCoalesced writes changes as one `coalesced` event, in order.
func (sub *subscription) sendCoalesced(changes []change, now time.Time) error {
	events := make([]any, len(changes))
	for i, c := range changes {
		events[i] = c.doc
	}
	last := changes[len(changes)-1]
	doc := sub.header()
	doc["events"], doc["count"] = events, canon.Number(strconv.Itoa(len(changes)))
	doc["message"] = fmt.Sprintf("%d changes arrived faster than max_event_rate_per_minute (%d) allows; "+
		"they are coalesced into this one event, in order; none was dropped", len(changes), sub.window.limit)
	if err := sub.write("coalesced", last.id, doc); err != nil {
		return err
	}
	sub.window.take(now)
	sub.cursor = last.seq
	return nil
}

// capped tells the client, once per wait, that its rate cap holds changes
// back and when they will come.
func (sub *subscription) capped(batch []change, more bool, now time.Time) error {
	sub.pending = true
	if sub.notified {
		return nil
	}
	sub.notified = true
	next := sub.window.nextFree(now)
	doc := sub.header()
	doc["max_event_rate_per_minute"] = canon.Number(strconv.Itoa(sub.window.limit))
	doc["pending_events"], doc["pending_at_least"] = canon.Number(strconv.Itoa(len(batch))), more
	doc["next_event_at"] = sub.s.cfg.Now().Add(next.Sub(now)).UTC().Format(time.RFC3339)
	doc["message"] = fmt.Sprintf("max_event_rate_per_minute (%d) reached: the pending changes, and any that follow, "+
		"will be sent coalesced at next_event_at; nothing is dropped", sub.window.limit)
	return sub.write("rate_limited", "", doc)
}

func seqNumber(seq uint64) canon.Number { return canon.Number(strconv.FormatUint(seq, 10)) }

// match turns a receipt into a change when it concerns the subscriber:
// a put of a visible document of the category's kinds that satisfies the
// constraints and the projection, or a grant of one to the subscriber;
// the delete of a document this stream sent, or the revoke of the
// subscriber's grant of one.
func (sub *subscription) match(r *store.Receipt) (change, bool, error) {
	switch r.Op {
	case "put":
		return sub.matchPut(r)
	case "delete":
		return sub.matchDelete(r)
	case store.OpGrant:
		if r.Grantee == sub.grantee {
			return sub.matchPut(r)
		}
	case store.OpRevoke:
		if r.Grantee == sub.grantee {
			return sub.matchDelete(r)
		}
	}
	return change{}, false, nil
}

func (sub *subscription) matchPut(r *store.Receipt) (change, bool, error) {
	if r.Seq <= sub.replayTo {
		sub.replayPuts[r.Num] = true
	}
	if !sub.kinds[r.Kind] {
		return change{}, false, nil
	}
	if r.Op == "put" && r.Owner != store.Public && r.Owner != sub.reader {
		// Another tenant's document reaches the subscriber through the
		// receipt of a grant to it, which always follows the put.
		return change{}, false, nil
	}
	doc, err := sub.s.cfg.Store.Get(sub.ctx, store.Ref{Num: r.Num})
	if errors.Is(err, store.ErrNotFound) {
		return change{}, false, nil // deleted since, or not the subscriber's to see
	}
	if err != nil {
		return change{}, false, err
	}
	c, err := sub.candidate(doc)
	if c == nil || err != nil {
		return change{}, false, err
	}
	sub.remember(r.Num, c.CandidateID)
	id := sub.s.eventID(r.Seq)
	return change{seq: r.Seq, id: id, name: "candidate", doc: map[string]any{"event_id": id, "op": r.Op,
		"kind": string(r.Kind), "content_id": r.HashAfter, "candidate": candidateDoc(c)}}, true, nil
}

// matchDelete turns the delete of a document the subscriber holds into a
// `deleted` event: one this stream sent, or, after a reconnect, one that
// matched when it reconnected (seed). A document deleted while the client
// was away, put before it left, can no longer be judged (its bytes are
// gone): it is reported with match_unknown, so that a client drops it if
// it holds it, and nothing it holds is silently left stale.
func (sub *subscription) matchDelete(r *store.Receipt) (change, bool, error) {
	doc := map[string]any{"op": r.Op, "kind": string(r.Kind), "content_id": r.HashBefore}
	if cid, ok := sub.matched[r.Num]; ok {
		delete(sub.matched, r.Num)
		doc["candidate_id"] = cid
	} else if sub.missedWhileAway(r) {
		doc["match_unknown"] = true
	} else {
		return change{}, false, nil // sealing an id for no event would be work for nothing
	}
	id := sub.s.eventID(r.Seq)
	doc["event_id"] = id
	return change{seq: r.Seq, id: id, name: "deleted", doc: doc}, true, nil
}

// missedWhileAway reports whether r deletes (or revokes the subscriber's
// grant of) a document the resuming client may hold: before it
// reconnected, put or granted before it left (no put or grant in the
// replayed receipts), of its kinds and visible to it. Visible means
// public or its own for a delete: a granted document's grants go with its
// delete (store.Grant), so whether this subscriber was granted it can no
// longer be told, and reporting it could show another tenant's delete to
// someone never granted the document; it is not reported. A revoke names
// its grantee, so the subscriber's own is.
func (sub *subscription) missedWhileAway(r *store.Receipt) bool {
	return r.Seq <= sub.replayTo && !sub.replayPuts[r.Num] && sub.kinds[r.Kind] &&
		(r.Owner == store.Public || r.Owner == sub.reader || r.Op == store.OpRevoke)
}

// candidate judges doc as a query would (query.Matcher: constraints with
// every leaf recorded, quality floor, projection); nil when it is
// rejected.
func (sub *subscription) candidate(doc *store.StoredDoc) (*query.Candidate, error) {
	sub.s.metrics.evaluated.WithLabelValues(planScan).Inc()
	c, _, err := sub.m.Match(doc)
	if c == nil || err != nil {
		return nil, err
	}
	c.Record.DecisionID = sub.decisionID()
	c.Record.EvaluatedAt = sub.s.cfg.Now().UTC().Format(time.RFC3339Nano)
	return c, nil
}
