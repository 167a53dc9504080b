package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"
)

// statusWriter records the status and size of a response. Unwrap lets
// http.ResponseController reach the connection (deadlines, flushing).
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// routeOptions say which of the shared steps a route takes.
type routeOptions struct {
	noRateLimit bool // health and metrics: never refused for load
}

// wrap gives h the steps every route shares: panic recovery, no-store,
// caller identification, the per-caller rate limit, the request log line
// and the route's metrics.
func (s *Server) wrap(route string, opts routeOptions, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w := &statusWriter{ResponseWriter: rw}
		var c caller
		defer func() { s.finish(w, r, route, start, c, recover()) }()
		w.Header().Set("Cache-Control", "no-store")
		var p *problem
		c, p = s.identify(r)
		if p != nil {
			if p.status == http.StatusUnauthorized {
				challenge(w, `, error="invalid_token"`)
			}
			s.writeProblem(w, r, *p)
			return
		}
		r = r.WithContext(withCaller(r.Context(), c))
		if !opts.noRateLimit && !s.admit(w, r, c) {
			return
		}
		h(w, r)
	})
}

// admit applies the rate limit: 429 with Retry-After when c is over it.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, c caller) bool {
	ok, wait := s.limiter.allow(c.rateKey(), s.cfg.Now())
	if ok {
		return true
	}
	s.metrics.rateLimited.Inc()
	secs := retryAfterSeconds(wait)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	s.writeProblem(w, r, problem{status: http.StatusTooManyRequests, code: "rate_limited", title: "Too many requests",
		detail: fmt.Sprintf("over %g requests per second for this caller; retry after %d s", s.cfg.RateLimit, secs)})
	return false
}

// finish recovers a panic as a 500, then logs and measures the request.
func (s *Server) finish(w *statusWriter, r *http.Request, route string, start time.Time, c caller, v any) {
	if v != nil {
		if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
			panic(v)
		}
		s.cfg.Logger.Error("panic", "route", route, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		if w.status == 0 {
			s.writeProblem(w, r, internalError())
		}
	}
	d := time.Since(start)
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	s.metrics.observe(route, status, d)
	// Typed attributes: the same line as Info's key-value pairs, without
	// boxing each value on every request. The route's pattern stands for
	// the path: a path holds content ids, envelope ids and grantee DIDs,
	// which a log must not keep in clear (grant receipts hash the DID).
	s.cfg.Logger.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.String("method", r.Method),
		slog.String("route", route), slog.String("pattern", r.Pattern), slog.Int("status", status),
		slog.Int64("bytes", w.bytes), slog.Float64("duration_ms", float64(d.Microseconds())/1000),
		slog.String("caller", c.principal()), slog.String("remote", r.RemoteAddr))
}
