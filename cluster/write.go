package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Receipt is what a write returns once JetStream stored it: the document,
// its shard and the stream sequence of the entry. A query that must see
// the write carries (Shard, Seq) in QueryOptions.After.
type Receipt struct {
	ID         canon.ContentID
	Kind       canon.Kind
	Owner      string
	NaturalKey string
	Shard      int
	Seq        uint64
	// Created is false when the identical document was stored already;
	// Seq is then the entry that stored it.
	Created bool
}

// casAttempts bounds how often a write retries after another writer
// changed the document's subject between its read and its publish.
const casAttempts = 8

// Put checks and parses doc as a store's Put does, then publishes it to
// its shard's stream and returns when JetStream stored it. Its owner is
// doc.Owner, else the context's principal (store.WithPrincipal). The same
// content again returns the first put's receipt; different content under
// a used natural key is a *store.ConflictError (errors.Is ErrConflict),
// decided cluster-wide by the stream, not by a replica.
func (n *Node) Put(ctx context.Context, doc store.Document) (Receipt, error) {
	if doc.Body == nil {
		return Receipt{}, fmt.Errorf("%w: the document has no body; give its JSON or PAIRL text in Body", store.ErrInvalid)
	}
	p, err := store.ParseDocument(doc.Body, doc.Kind, &n.o.Store.Limits, &n.o.Store.Messages)
	if err != nil {
		return Receipt{}, err
	}
	signals := p.Signals
	if doc.Signals != nil {
		// Checked here, before the stream takes it: every replica would
		// refuse a bad override and skip its entry, so a put acknowledged
		// here would be stored nowhere.
		if signals, err = doc.Signals.Canonical(); err != nil {
			return Receipt{}, fmt.Errorf("%w: Document.Signals: %w", store.ErrInvalid, err)
		}
		doc.Signals = signals
	}
	principal := store.Principal(ctx)
	owner := doc.Owner
	if owner == "" {
		owner = principal
	}
	if owner != store.Public {
		if err := canon.CheckDID(owner); err != nil {
			return Receipt{}, fmt.Errorf("%w: owner: %v", store.ErrInvalid, err)
		}
	}
	id := p.ID()
	cid := p.NaturalKey
	if cid == "" {
		cid = id.String()
	}
	e := &entry{Op: opPut, Principal: principal, Owner: owner, Kind: p.Kind, ID: id.String(), CandidateID: cid,
		Body: doc.Body, Given: doc.Kind, Signals: doc.Signals, Effective: signalsJSON(signals)}
	rt := routeOf(n.o.Shards, owner, p.Kind, p.NaturalKey, id)
	rc := Receipt{ID: id, Kind: p.Kind, Owner: owner, NaturalKey: p.NaturalKey, Shard: rt.shard}
	return retrying(ctx, func(ctx context.Context) (Receipt, error) { return n.put(ctx, rt, e, rc) })
}

func (n *Node) put(ctx context.Context, rt route, e *entry, rc Receipt) (Receipt, error) {
	for range casAttempts {
		prev, last, err := n.lastEntry(ctx, rt)
		if err != nil {
			return Receipt{}, err
		}
		if prev != nil && prev.live() {
			if err := samePut(prev, e, rc.NaturalKey); err != nil {
				return Receipt{}, err
			}
			rc.Seq = last
			return rc, nil
		}
		seq, retry, err := n.publish(ctx, rt, e, last)
		if retry {
			continue
		}
		if err != nil {
			return Receipt{}, err
		}
		rc.Seq, rc.Created = seq, true
		return rc, nil
	}
	return Receipt{}, &ShardError{Shard: rt.shard, Err: fmt.Errorf("%s changed %d times while putting it; retry", rt.subject, casAttempts)}
}

// samePut returns nil when the stored put prev is the document e (an
// idempotent put), else the conflict a store reports.
func samePut(prev, e *entry, naturalKey string) error {
	switch {
	case prev.ID != e.ID:
		return &store.ConflictError{Kind: string(e.Kind), NaturalKey: naturalKey, Existing: prev.ID, Incoming: e.ID}
	case prev.Kind != e.Kind:
		return &store.ConflictError{Existing: e.ID, Incoming: e.ID,
			Reason: fmt.Sprintf("this content is already stored as kind %s, not %s", prev.Kind, e.Kind)}
	case prev.Effective != e.Effective:
		return &store.ConflictError{Existing: e.ID, Incoming: e.ID,
			Reason: fmt.Sprintf("%s %q is already stored with other score, cost or quality signals; delete it first to replace them",
				e.Kind, naturalKey)}
	}
	return nil
}

// lastEntry returns the last entry of the document's subject and its
// sequence, or nil and 0 when the subject is empty.
func (n *Node) lastEntry(ctx context.Context, rt route) (*entry, uint64, error) {
	s, err := n.stream(ctx, rt.shard)
	if err != nil {
		return nil, 0, err
	}
	m, err := s.GetLastMsgForSubject(ctx, rt.subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, &ShardError{Shard: rt.shard, Err: err}
	}
	e, err := decodeEntry(m.Data)
	if err != nil {
		return nil, 0, &ShardError{Shard: rt.shard, Err: fmt.Errorf("entry %d: %w", m.Sequence, err)}
	}
	return e, m.Sequence, nil
}

// publish appends e to its subject if the subject's last sequence is
// still last; retry reports that another writer came first.
func (n *Node) publish(ctx context.Context, rt route, e *entry, last uint64) (seq uint64, retry bool, err error) {
	ack, err := n.js.Publish(ctx, rt.subject, e.encode(),
		jetstream.WithExpectStream(streamName(rt.shard)), jetstream.WithExpectLastSequencePerSubject(last))
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, &ShardError{Shard: rt.shard, Err: fmt.Errorf("publish: %w", err)}
	}
	return ack.Sequence, false, nil
}

// Delete removes the context principal's document with content id id
// through its shard's stream, as a store's Delete does: a document that
// does not exist, or is another owner's, is store.ErrNotFound.
func (n *Node) Delete(ctx context.Context, id canon.ContentID) (Receipt, error) {
	principal := store.Principal(ctx)
	loc, err := retrying(ctx, func(ctx context.Context) (*reply, error) { return n.locate(ctx, principal, id) })
	if err != nil {
		return Receipt{}, err
	}
	rt := routeOf(n.o.Shards, principal, loc.Kind, loc.NaturalKey, id)
	rc := Receipt{ID: id, Kind: loc.Kind, Owner: principal, NaturalKey: loc.NaturalKey, Shard: rt.shard}
	published := false
	return retrying(ctx, func(ctx context.Context) (Receipt, error) { return n.delete(ctx, rt, principal, rc, &published) })
}

// delete publishes the delete of rc's document. *published says that an
// earlier attempt published it without learning whether JetStream stored
// it: the delete found at the head is then that attempt's.
func (n *Node) delete(ctx context.Context, rt route, principal string, rc Receipt, published *bool) (Receipt, error) {
	id := rc.ID
	for range casAttempts {
		prev, last, err := n.lastEntry(ctx, rt)
		if err != nil {
			return Receipt{}, err
		}
		if *published && prev != nil && prev.Op == opDelete && prev.ID == id.String() {
			rc.Seq, rc.Created = last, true
			return rc, nil
		}
		if prev == nil || !prev.live() || prev.ID != id.String() {
			return Receipt{}, fmt.Errorf("%w: %s", store.ErrNotFound, id)
		}
		e := &entry{Op: opDelete, Principal: principal, Owner: principal, Kind: prev.Kind, ID: prev.ID,
			CandidateID: prev.CandidateID}
		seq, retry, err := n.publish(ctx, rt, e, last)
		*published = *published || (err != nil && transient(err))
		if retry {
			continue
		}
		if err != nil {
			return Receipt{}, err
		}
		rc.Seq, rc.Created = seq, true
		return rc, nil
	}
	return Receipt{}, &ShardError{Shard: rt.shard, Err: fmt.Errorf("%s changed %d times while deleting it; retry", rt.subject, casAttempts)}
}

// Grant lets grantee read the context principal's document with content
// id id, through its shard's stream, as a store's Grant does: a document
// the principal does not own is store.ErrNotFound; the store checks the
// grantee when the replicas apply it (an invalid one is skipped there, so
// check it with canon.CheckDID first).
func (n *Node) Grant(ctx context.Context, id canon.ContentID, grantee string) (Receipt, error) {
	return n.changeGrant(ctx, id, grantee, opGrant)
}

// Revoke withdraws a Grant.
func (n *Node) Revoke(ctx context.Context, id canon.ContentID, grantee string) (Receipt, error) {
	return n.changeGrant(ctx, id, grantee, opRevoke)
}

func (n *Node) changeGrant(ctx context.Context, id canon.ContentID, grantee, op string) (Receipt, error) {
	principal := store.Principal(ctx)
	if err := canon.CheckDID(grantee); err != nil || grantee == principal || principal == store.Public {
		return Receipt{}, fmt.Errorf("%w: %s to %q: the grantee must be another tenant's DID, and the owner a tenant (%v)",
			store.ErrInvalid, op, grantee, err)
	}
	loc, err := retrying(ctx, func(ctx context.Context) (*reply, error) { return n.locate(ctx, principal, id) })
	if err != nil {
		return Receipt{}, err
	}
	rt := routeOf(n.o.Shards, principal, loc.Kind, loc.NaturalKey, id)
	rc := Receipt{ID: id, Kind: loc.Kind, Owner: principal, NaturalKey: loc.NaturalKey, Shard: rt.shard}
	return retrying(ctx, func(ctx context.Context) (Receipt, error) {
		for range casAttempts {
			prev, last, err := n.lastEntry(ctx, rt)
			if err != nil {
				return Receipt{}, err
			}
			if prev == nil || !prev.live() || prev.ID != id.String() {
				return Receipt{}, fmt.Errorf("%w: %s", store.ErrNotFound, id)
			}
			e := *prev // the put's id, kind and signals: the document stays what it was
			e.Op, e.Principal, e.Grantee, e.Body, e.Signals = op, principal, grantee, nil, nil
			seq, retry, err := n.publish(ctx, rt, &e, last)
			if retry {
				continue
			}
			if err != nil {
				return Receipt{}, err
			}
			rc.Seq, rc.Created = seq, true
			return rc, nil
		}
		return Receipt{}, &ShardError{Shard: rt.shard, Err: fmt.Errorf("%s changed %d times during a %s; retry", rt.subject, casAttempts, op)}
	})
}

// Erase deletes the context principal's document with content id id, as
// Delete does, then purges its earlier entries from the stream, so that
// its bytes are on no replica and in no stream: a replica that replays
// the stream later never sees them. The delete entry stays, as the
// subject's last, so that natural-key uniqueness still holds.
func (n *Node) Erase(ctx context.Context, id canon.ContentID) (Receipt, error) {
	rc, err := n.Delete(ctx, id)
	if err != nil {
		return Receipt{}, err
	}
	rt := routeOf(n.o.Shards, rc.Owner, rc.Kind, rc.NaturalKey, id)
	_, err = retrying(ctx, func(ctx context.Context) (struct{}, error) {
		s, err := n.stream(ctx, rt.shard)
		if err != nil {
			return struct{}{}, err
		}
		err = s.Purge(ctx, jetstream.WithPurgeSubject(rt.subject), jetstream.WithPurgeKeep(1))
		if err != nil {
			err = &ShardError{Shard: rt.shard, Err: fmt.Errorf("purge %s: %w", rt.subject, err)}
		}
		return struct{}{}, err
	})
	return rc, err
}

// writeRetry bounds how long a write retries while its stream has no
// leader (JetStream elects a new one within seconds when a server is
// lost). A retry is safe: it reads the subject again, so a publish that
// was stored but not acknowledged is found and acknowledged then.
const writeRetry = 15 * time.Second

// attemptTimeout bounds one attempt: a request to a server that just
// died is not answered, and waiting out the client's default (5s) would
// leave fewer attempts for the new leader.
const attemptTimeout = 2 * time.Second

// retrying calls f until it succeeds, fails for good, or writeRetry
// passes; each call gets attemptTimeout.
func retrying[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	deadline := time.Now().Add(writeRetry)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		v, err := f(actx)
		cancel()
		if err == nil || !transient(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return v, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return v, err
		}
	}
}

// transient reports whether err is JetStream between leaders or a
// connection between servers, which passes.
func transient(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) ||
		errors.Is(err, nats.ErrConnectionReconnecting) || errors.Is(err, nats.ErrDisconnected)
}
