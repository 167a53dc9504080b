package server

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/aqlstore/aqlstore/canon"
)

// gates bounds what runs at once: queries over the whole server, and
// subscription streams per caller. A request over a bound is refused at
// once rather than queued, so that a flood is answered in constant time
// and its sender learns to back off (Retry-After). It is safe for
// concurrent use.
type gates struct {
	queries atomic.Int64 // queries running

	mu   sync.Mutex
	subs map[string]int // open subscription streams per caller (caller.rateKey)
}

func newGates() *gates { return &gates{subs: map[string]int{}} }

// startQuery takes a query slot, or answers 503 with Retry-After and a
// signed too_many_queries problem when MaxQueries are running (ok false).
// It is taken once the intent is read, so a client sending its body
// slowly holds a connection, never a slot. release gives the slot back.
func (s *Server) startQuery(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	g, max := s.gates, s.cfg.MaxQueries
	if n := g.queries.Add(1); n > int64(max) {
		g.queries.Add(-1)
		w.Header().Set("Retry-After", "1")
		p := unavailable("too_many_queries", fmt.Sprintf(
			"%d queries are running, the limit of this server (--max-queries %d); retry after 1 s", max, max))
		p.extra = map[string]any{"limit": canon.Number(strconv.Itoa(max))}
		s.writeProblem(w, r, p)
		return nil, false
	}
	return func() { g.queries.Add(-1) }, true
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
