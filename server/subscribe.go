package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// handleSubscribe answers POST /storage/subscribe (the RFC 0023 subscribe
// operation): a subscription intent, answered with server-sent events as
// POST /oap/intent answers it.
func (s *Server) handleSubscribe(w http.ResponseWriter, r *http.Request) {
	in, ok := s.readIntent(w, r)
	if !ok {
		return
	}
	if in.Category != aql.CategorySubscription {
		s.writeProblem(w, r, badRequest("not_a_subscription",
			"category is "+strconv.Quote(string(in.Category))+"; a subscription intent has category subscription and max_event_rate_per_minute"))
		return
	}
	s.subscribe(w, r, in)
}

// subscribe checks the intent (R1), picks the reader and the position to
// start after, and runs the subscription until the client leaves, the
// intent's validity window ends or the server shuts down.
func (s *Server) subscribe(w http.ResponseWriter, r *http.Request, in *aql.Intent) {
	now := s.cfg.Now()
	if err := in.CheckValidity(now); err != nil {
		s.refuseIntent(w, r, err, in)
		return
	}
	reader, err := s.subscriber(r, in)
	if err != nil {
		s.refuseIntent(w, r, err, in)
		return
	}
	after, resumed, p := s.resumeAfter(r)
	if p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	closeSub, ok := s.openSubscription(w, r, callerOf(r).rateKey())
	if !ok {
		return
	}
	defer closeSub()
	e, done, ok := s.startSSE(w, r)
	if !ok {
		return
	}
	defer done()
	ctx, cancel := s.streamContext(store.WithPrincipal(r.Context(), reader))
	defer cancel()
	sub := s.newSubscription(ctx, e, in, reader, after)
	if resumed {
		err = sub.seed()
	}
	if err == nil {
		err = sub.run()
	}
	if err != nil && ctx.Err() == nil {
		s.cfg.Logger.Warn("subscription ended", "subscription", sub.id, "err", err)
	}
}

// subscriber is the principal a subscription reads as, as for a query
// (queryOptions): the authenticated caller, else public; an intent signed
// by an issuer other than the caller reads as public, and a resolvable
// key with a bad signature is refused (R1).
func (s *Server) subscriber(r *http.Request, in *aql.Intent) (string, error) {
	return query.Reader(in, &query.Options{Keys: s.cfg.Keys, Principal: callerOf(r).tenant, IssuerProof: true})
}

// resumeAfter is the receipt seq the stream starts after: the one
// Last-Event-ID (or ?last_event_id=) names when the client resumes, else
// the head now, so that a new subscription sees the changes made after it.
func (s *Server) resumeAfter(r *http.Request) (after uint64, resumed bool, p *problem) {
	id := r.Header.Get("Last-Event-ID")
	if id == "" {
		id = r.URL.Query().Get("last_event_id")
	}
	head := s.cfg.Store.Head()
	if id == "" {
		return head, false, nil
	}
	n, err := s.cfg.Signer.Sealer(eventIDPurpose).OpenUint64(id)
	if err != nil {
		p := badRequest("bad_last_event_id", "Last-Event-ID "+strconv.Quote(id)+" is not an event id of this server; "+
			"send the id of the last event received, or subscribe again without Last-Event-ID")
		return 0, false, &p
	}
	if n > head {
		p := badRequest("bad_last_event_id", "Last-Event-ID "+strconv.Quote(id)+" is ahead of this store: it was issued "+
			"for another store under this server's key; subscribe again without Last-Event-ID")
		return 0, false, &p
	}
	return n, true, nil
}

// newSubscription prepares the state of one stream.
func (s *Server) newSubscription(ctx context.Context, e *sseWriter, in *aql.Intent, reader string, after uint64) *subscription {
	var b [12]byte
	_, _ = rand.Read(b[:])
	kinds := map[canon.Kind]bool{}
	for _, k := range query.CategoryKinds(in.Category) {
		kinds[k] = true
	}
	grantee := ""
	if reader != store.Public {
		grantee = store.GranteeHash(reader)
	}
	return &subscription{s: s, ctx: ctx, e: e, in: in, m: query.NewMatcher(in, time.Time{}), reader: reader, grantee: grantee, kinds: kinds,
		id: "urn:aqlstore:subscription:" + hex.EncodeToString(b[:]), cursor: after,
		window: newEventWindow(in.MaxEventRatePerMinute), matched: map[uint32]string{}, lastWrite: time.Now()}
}
