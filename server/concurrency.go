package server

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/aqlstore/aqlstore/canon"
)

// gates bounds what runs at once: queries over the whole server and per
// caller, and subscription streams per caller. A request over a bound is
// refused at once rather than queued, so that a flood is answered in
// constant time and its sender learns to back off (Retry-After). It is
// safe for concurrent use.
type gates struct {
	queries atomic.Int64 // queries running

	mu       sync.Mutex
	subs     map[string]int // open subscription streams per caller (caller.rateKey)
	callerQs map[string]int // queries running per caller (caller.rateKey)
}

func newGates() *gates { return &gates{subs: map[string]int{}, callerQs: map[string]int{}} }

// startQuery takes a query slot, or answers (ok false) 429 with
// Retry-After and a signed too_many_caller_queries problem when the
// caller runs MaxQueriesPerCaller already, else 503 too_many_queries when
// MaxQueries are running. The caller's share is checked first, so that
// one caller (a tenant, or an anonymous address) cannot hold every slot
// and starve the rest. It is taken once the intent is read, so a client
// sending its body slowly holds a connection, never a slot. release
// gives the slot back.
func (s *Server) startQuery(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	key := callerOf(r).rateKey()
	callerDone, ok := s.startCallerQuery(w, r, key)
	if !ok {
		return nil, false
	}
	g, max := s.gates, s.cfg.MaxQueries
	if n := g.queries.Add(1); n > int64(max) {
		g.queries.Add(-1)
		callerDone()
		w.Header().Set("Retry-After", "1")
		p := unavailable("too_many_queries", fmt.Sprintf(
			"%d queries are running, the limit of this server (--max-queries %d); retry after 1 s", max, max))
		p.extra = map[string]any{"limit": canon.Number(strconv.Itoa(max))}
		s.writeProblem(w, r, p)
		return nil, false
	}
	return func() { g.queries.Add(-1); callerDone() }, true
}

// startCallerQuery counts one more query for the caller with key, or
// answers 429 when it runs MaxQueriesPerCaller already.
func (s *Server) startCallerQuery(w http.ResponseWriter, r *http.Request, key string) (release func(), ok bool) {
	g, max := s.gates, s.cfg.MaxQueriesPerCaller
	g.mu.Lock()
	n := g.callerQs[key]
	if n >= max {
		g.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		p := problem{status: http.StatusTooManyRequests, code: "too_many_caller_queries", title: "Too many queries from this caller",
			detail: fmt.Sprintf("this caller has %d queries running, the limit per caller (--max-queries-per-caller %d); "+
				"wait for one to answer, or retry after 1 s", n, max),
			extra: map[string]any{"limit": canon.Number(strconv.Itoa(max))}}
		s.writeProblem(w, r, p)
		return nil, false
	}
	g.callerQs[key] = n + 1
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.callerQs[key]--; g.callerQs[key] <= 0 {
			delete(g.callerQs, key) // only callers querying now stay in the map
		}
	}, true
}

// openSubscription counts one more subscription stream for the caller
// with key, or answers 429 with Retry-After and a signed
// too_many_subscriptions problem when the caller holds MaxSubscriptions
// already (ok false). Call done when the stream ends.
func (s *Server) openSubscription(w http.ResponseWriter, r *http.Request, key string) (done func(), ok bool) {
	g, max := s.gates, s.cfg.MaxSubscriptions
	g.mu.Lock()
	n := g.subs[key]
	if n >= max {
		g.mu.Unlock()
		w.Header().Set("Retry-After", "5")
		p := problem{status: http.StatusTooManyRequests, code: "too_many_subscriptions", title: "Too many subscriptions",
			detail: fmt.Sprintf("this caller has %d subscription streams open, the limit per caller (--max-subscriptions %d); close one before opening another", n, max),
			extra:  map[string]any{"limit": canon.Number(strconv.Itoa(max))}}
		s.writeProblem(w, r, p)
		return nil, false
	}
	g.subs[key] = n + 1
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			// Forget callers with no stream, so the map holds only the
			// callers streaming now.
			if g.subs[key]--; g.subs[key] <= 0 {
				delete(g.subs, key)
			}
		})
	}, true
}
