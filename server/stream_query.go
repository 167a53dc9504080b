package server

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"strconv"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
)

// streamQuery answers a non-subscription intent with server-sent events:
// one signed `candidate` event per candidate, then an `end` event. A
// full_set intent streams its candidates as they are evaluated, in
// document order, unranked (query.Stream); any other policy is resolved
// first and its ranked candidates sent one per event. Errors found before
// the first event are answered as for a plain query.
func (s *Server) streamQuery(w http.ResponseWriter, r *http.Request, in *aql.Intent) {
	opts, p := s.queryOptions(r)
	if p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	if in.ResolutionPolicy == "full_set" {
		s.streamFullSet(w, r, in, opts)
		return
	}
	s.streamRanked(w, r, in, opts)
}

// streamHeader is what every event of a query stream carries.
func (s *Server) streamHeader(in *aql.Intent, at time.Time) map[string]any {
	return map[string]any{"intent_id": in.IntentID, "resolver_did": s.cfg.Signer.DID(),
		"evaluated_at": at.UTC().Format(time.RFC3339Nano)}
}

// streamRanked resolves, then sends each ranked candidate.
func (s *Server) streamRanked(w http.ResponseWriter, r *http.Request, in *aql.Intent, opts *query.Options) {
	var plan *query.Plan
	opts.Explain = func(p *query.Plan) { plan = p }
	resp, ok := s.resolveIntent(w, r, in, opts)
	if !ok {
		return
	}
	s.warnPaths(w, in, plan, resp)
	e, done, ok := s.startSSE(w, r)
	if !ok {
		return
	}
	defer done()
	for i := range resp.Candidates {
		doc := s.streamHeader(in, opts.At)
		doc["response_id"], doc["candidate"] = resp.ResponseID, candidateDoc(&resp.Candidates[i])
		if e.event("candidate", strconv.Itoa(i+1), doc) != nil {
			return
		}
	}
	end := s.streamHeader(in, opts.At)
	end["response_id"], end["complete"] = resp.ResponseID, true
	end["count"] = canon.Number(strconv.Itoa(len(resp.Candidates)))
	if resp.NextCursor != "" {
		end["next_cursor"] = resp.NextCursor
	}
	_ = e.event("end", "", end)
}

// streamFullSet streams a full_set's candidates as query.Stream yields them.
func (s *Server) streamFullSet(w http.ResponseWriter, r *http.Request, in *aql.Intent, opts *query.Options) {
	ctx, cancel := s.streamContext(r.Context())
	defer cancel()
	ctx, cancelQuery := context.WithTimeout(ctx, s.cfg.QueryTimeout) // a stream is one query too
	defer cancelQuery()
	kind := planScan
	opts.Index, opts.Explain = s.cfg.Index, func(p *query.Plan) { kind = planKind(p) }
	next, stop := iter.Pull2(query.Stream(ctx, s.cfg.Store, in, opts))
	defer stop()
	c, err, more := next()
	if err != nil {
		s.refuseIntent(w, r, err, in)
		return
	}
	e, done, ok := s.startSSE(w, r)
	if !ok {
		return
	}
	defer done()
	n := 0
	for ; more && err == nil; c, err, more = next() {
		n++
		doc := s.streamHeader(in, opts.At)
		doc["index"], doc["candidate"] = canon.Number(strconv.Itoa(n)), candidateDoc(c)
		if e.event("candidate", strconv.Itoa(n), doc) != nil {
			return
		}
		s.metrics.evaluated.WithLabelValues(kind).Inc()
	}
	s.endFullSet(e, in, opts, n, err)
}

// endFullSet closes a full_set stream: complete, cut by shutdown, or
// failed.
func (s *Server) endFullSet(e *sseWriter, in *aql.Intent, opts *query.Options, n int, err error) {
	end := s.streamHeader(in, opts.At)
	end["count"], end["complete"] = canon.Number(strconv.Itoa(n)), err == nil
	switch {
	case err == nil:
	case s.shuttingDown() && errors.Is(err, context.Canceled):
		end["reason"] = "the server is shutting down; run the intent again"
	case errors.Is(err, context.DeadlineExceeded):
		end["reason"] = "the resolution took longer than the server allows (--query-timeout " + s.cfg.QueryTimeout.String() +
			") after " + strconv.Itoa(n) + " candidates; narrow the constraints"
	default:
		s.cfg.Logger.Error("stream", "intent", in.IntentID, "err", err)
		end["reason"] = "the resolution failed after " + strconv.Itoa(n) + " candidates"
	}
	_ = e.event("end", "", end)
}
