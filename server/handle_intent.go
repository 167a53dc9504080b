package server

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strconv"
	"strings"

	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
)

// handleIntent answers POST /oap/intent (the RFC 0023 query operation):
// a subscription intent, or any intent with Accept: text/event-stream, is
// answered with server-sent events; any other gets the signed
// IntentResponse. ?cursor= continues a full_set answer, ?page_size= sets
// its page (1–1000, default 100).
func (s *Server) handleIntent(w http.ResponseWriter, r *http.Request) {
	in, ok := s.readIntent(w, r)
	if !ok {
		return
	}
	if in.Category == aql.CategorySubscription {
		s.subscribe(w, r, in) // a stream: bounded by MaxStreams and MaxSubscriptions
		return
	}
	release, ok := s.startQuery(w, r)
	if !ok {
		return
	}
	defer release()
	if s.queryHook != nil {
		s.queryHook(in)
	}
	if acceptsSSE(r) {
		s.streamQuery(w, r, in)
		return
	}
	s.resolve(w, r, in)
}

// readIntent checks the media type, reads and parses the intent. Every
// failure is answered here.
func (s *Server) readIntent(w http.ResponseWriter, r *http.Request) (*aql.Intent, bool) {
	if p := checkMedia(r, contentOAP, contentJSON); p != nil {
		s.writeProblem(w, r, *p)
		return nil, false
	}
	b, p := readBody(w, r, s.cfg.MaxBodyBytes)
	if p != nil {
		s.writeProblem(w, r, *p)
		return nil, false
	}
	in, err := aql.Parse(b, s.cfg.intentOptions())
	if err != nil {
		s.refuseIntent(w, r, err, nil)
		return nil, false
	}
	return in, true
}

// resolve answers with the signed IntentResponse.
func (s *Server) resolve(w http.ResponseWriter, r *http.Request, in *aql.Intent) {
	opts, p := s.queryOptions(r)
	if p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	var plan *query.Plan
	opts.Explain = func(p *query.Plan) { plan = p }
	resp, ok := s.resolveIntent(w, r, in, opts)
	if !ok {
		return
	}
	b, err := resp.MarshalJSON()
	if err != nil {
		s.cfg.Logger.Error("encode response", "err", err)
		s.writeProblem(w, r, internalError())
		return
	}
	s.warnPaths(w, in, plan, resp)
	writeJSON(w, http.StatusOK, contentJSON, b)
}

// resolveIntent resolves in within the query timeout, through the index,
// and counts the evaluated candidates by plan kind; on failure it has
// answered the request (refuseIntent) and reports false.
func (s *Server) resolveIntent(w http.ResponseWriter, r *http.Request, in *aql.Intent, opts *query.Options) (*query.Response, bool) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.QueryTimeout)
	defer cancel()
	kind := planScan
	opts.Index = s.cfg.Index
	explain := opts.Explain
	opts.Explain = func(p *query.Plan) {
		kind = planKind(p)
		if explain != nil {
			explain(p)
		}
	}
	resp, err := query.Resolve(ctx, s.cfg.Store, in, opts)
	if err != nil {
		s.refuseIntent(w, r, err, in)
		return nil, false
	}
	s.metrics.evaluated.WithLabelValues(kind).Add(float64(resp.Evaluated))
	return resp, true
}

// planKind names a plan for the metrics: scan (no index), index
// (candidates looked up one by one) or index_sequential (candidates
// fetched by walking the store in order).
func planKind(p *query.Plan) string {
	switch {
	case p == nil:
		return planScan
	case p.Sequential:
		return "index_sequential"
	}
	return "index"
}

// queryOptions reads ?cursor= and ?page_size=. The query reads as the
// authenticated caller (bearer token or signed request), else as public;
// an intent signed by another issuer than the caller reads as public
// (query.Options.IssuerProof): a signed intent is not a credential.
func (s *Server) queryOptions(r *http.Request) (*query.Options, *problem) {
	o := &query.Options{Signer: s.cfg.Signer, Keys: s.cfg.Keys, At: s.cfg.Now(),
		Principal: callerOf(r).tenant, IssuerProof: true, MaxRejected: s.cfg.MaxRejected}
	if r.URL.RawQuery == "" { // the common case: nothing to parse
		return o, nil
	}
	q := r.URL.Query()
	o.Cursor = q.Get("cursor")
	if ps := q.Get("page_size"); ps != "" {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 || n > s.cfg.MaxPageSize {
			p := pageSizeProblem(ps, s.cfg.MaxPageSize)
			return nil, &p
		}
		o.PageSize = n
	}
	return o, nil
}

// refuseIntent answers a refused intent with query.ErrorDocument (every
// problem with its JSON Pointer, R1), given the RFC 9457 members too and
// signed again over all of them.
func (s *Server) refuseIntent(w http.ResponseWriter, r *http.Request, err error, in *aql.Intent) {
	p, known := intentProblem(err)
	if !known {
		if r.Context().Err() == nil {
			s.cfg.Logger.Error("resolve", "err", err)
		}
		s.writeProblem(w, r, p)
		return
	}
	id := ""
	if in != nil {
		id = in.IntentID
	}
	doc, derr := query.ErrorDocument(s.cfg.Signer, err, id, s.cfg.Now())
	if derr != nil {
		s.cfg.Logger.Error("error document", "err", derr)
		s.writeProblem(w, r, internalError())
		return
	}
	delete(doc, "signature")
	p.detail = errorDetail(err)
	maps.Copy(doc, p.members(r.URL.Path))
	s.writeSigned(w, p.status, contentProblem, doc)
}

// statusClientClosed is the status logged for a query whose client left
// before its answer (nginx's 499); no client sees it.
const statusClientClosed = 499

// intentProblem maps a resolution error to its status; known is false for
// failures of the server rather than of the intent.
func intentProblem(err error) (p problem, known bool) {
	switch {
	case errors.Is(err, aql.ErrInvalid):
		return problem{status: http.StatusBadRequest, code: "invalid_intent", title: "Invalid intent"}, true
	case errors.Is(err, aql.ErrOutsideValidity):
		return problem{status: http.StatusUnprocessableEntity, code: "outside_validity", title: "Intent outside its validity window"}, true
	case errors.Is(err, query.ErrRefused):
		return problem{status: http.StatusForbidden, code: "signature_refused", title: "Intent signature refused"}, true
	case errors.Is(err, query.ErrBadCursor):
		return problem{status: http.StatusBadRequest, code: "invalid_cursor", title: "Invalid cursor"}, true
	case errors.Is(err, context.DeadlineExceeded):
		return unavailable("query_timeout", "the resolution took longer than the server allows; narrow the constraints"), false
	case errors.Is(err, context.Canceled): // the client left: nobody reads this, the log and metrics do
		return problem{status: statusClientClosed, code: "client_closed_request", title: "Client closed the request",
			detail: "the client went away before the resolution ended; it was stopped"}, false
	}
	return storeFailure(err), false
}

// errorDetail is the problem detail of an intent error: every problem,
// each at its pointer.
func errorDetail(err error) string {
	var inv *aql.InvalidError
	if !errors.As(err, &inv) {
		return err.Error()
	}
	parts := make([]string, len(inv.Problems))
	for i, p := range inv.Problems {
		parts[i] = p.String()
	}
	return strconv.Itoa(len(parts)) + " problem(s) in the intent: " + strings.Join(parts, "; ")
}
