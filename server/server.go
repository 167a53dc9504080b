package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/prometheus/client_golang/prometheus"
)

// Server serves one store over HTTP. Create it with New, run it with
// Serve or ListenAndServe. It is safe for concurrent use.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	metrics *metrics
	limiter *limiter
	nonces  *nonceCache // signed requests' nonces within the window
	gates   *gates      // queries and subscriptions running (MaxQueries, MaxSubscriptions)
	writes  *writeGate  // write request bytes in memory (MaxWriteBytes)

	invocations *invocationLog // receipts of endpoints.invoke, listed by endpoints.audit

	// queryHook, when set (tests only), runs while a query holds its slot.
	queryHook func(*aql.Intent)

	didWeb  atomic.Pointer[string] // set by New from PublicURL/DIDWeb, else by Serve from the listener
	streams atomic.Int64           // SSE streams open now

	closing     chan struct{} // closed when shutdown begins: streams end
	closingOnce sync.Once
}

// New checks cfg and returns a Server. cfg is copied; its defaults are
// filled (Config.EnsureDefaults). An address beyond loopback without Auth
// is refused with ErrNoAuth.
func New(cfg Config) (*Server, error) {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), metrics: newMetrics(cfg.Store),
		limiter: newLimiter(cfg.RateLimit, cfg.RateBurst), nonces: newNonceCache(), gates: newGates(), invocations: newInvocationLog(), writes: newWriteGate(cfg.MaxWriteBytes), closing: make(chan struct{})}
	if did := s.configuredDID(); did != "" {
		s.didWeb.Store(&did)
	}
	s.routes()
	return s, nil
}

// configuredDID is the did:web the configuration names, or "".
func (s *Server) configuredDID() string {
	if s.cfg.DIDWeb != "" {
		return s.cfg.DIDWeb
	}
	if s.cfg.PublicURL != "" {
		host := strings.TrimPrefix(strings.TrimPrefix(s.cfg.PublicURL, "https://"), "http://")
		host, _, _ = strings.Cut(host, "/")
		return didWebFor(host)
	}
	return ""
}

// DIDWeb returns the did:web the server publishes at /.well-known/did.json.
func (s *Server) DIDWeb() string {
	if p := s.didWeb.Load(); p != nil {
		return *p
	}
	return didWebFor(s.cfg.Addr)
}

// Handler returns the server's routes with their middleware, for tests
// and for embedding under another http.Server.
func (s *Server) Handler() http.Handler { return s.mux }

// Registry returns the private Prometheus registry /metrics serves.
func (s *Server) Registry() *prometheus.Registry { return s.metrics.reg }

// ListenAndServe listens on Config.Addr and serves until ctx ends.
func (s *Server) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("server: listen: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx ends, then shuts down gracefully: it stops
// accepting, ends every stream with an `end` event, lets in-flight
// requests finish for up to Config.ShutdownTimeout, and closes what is
// left. It refuses (ErrNoAuth) a listener beyond loopback without Auth,
// and returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	addr := ln.Addr().String()
	if !s.cfg.Auth.Enabled() && !IsLoopback(addr) {
		ln.Close()
		return fmt.Errorf("%w: %s is not a loopback address", ErrNoAuth, addr)
	}
	if s.didWeb.Load() == nil {
		did := didWebFor(addr)
		s.didWeb.Store(&did)
	}
	hs := s.httpServer(ctx)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.cfg.Logger.Info("listening", "addr", addr, "did", s.cfg.Signer.DID(), "did_web", s.DIDWeb())
	select {
	case err := <-errc:
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	return s.shutdown(hs, errc)
}

// httpServer builds the http.Server with the configured timeouts.
func (s *Server) httpServer(ctx context.Context) *http.Server {
	hs := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    s.cfg.MaxHeaderBytes,
		ErrorLog:          slogErrorLog(s.cfg.Logger),
		// Requests keep running when Serve's ctx ends; shutdown decides.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	hs.RegisterOnShutdown(s.beginClosing)
	return hs
}

// beginClosing tells every stream to end.
func (s *Server) beginClosing() { s.closingOnce.Do(func() { close(s.closing) }) }

// shutdown stops hs gracefully, then forcibly after the timeout.
func (s *Server) shutdown(hs *http.Server, errc <-chan error) error {
	s.cfg.Logger.Info("shutting down", "timeout", s.cfg.ShutdownTimeout.String(), "streams", s.streams.Load())
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	s.beginClosing()
	err := hs.Shutdown(ctx)
	if err != nil {
		s.cfg.Logger.Warn("shutdown timed out; closing connections", "err", err)
		_ = hs.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("server: %w", serr)
	}
	s.cfg.Logger.Info("stopped")
	return err
}
