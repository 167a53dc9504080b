package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime/pprof"
	"time"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server"
	"github.com/aqlstore/aqlstore/server/client"
	"github.com/aqlstore/aqlstore/store"
	"github.com/spf13/cobra"
)

// serveCommand runs the bundled HTTP server over the store in --dir.
type serveCommand struct {
	m         *Main
	addr      string
	authFile  string
	trustFile string
	publicURL string
	didWeb    string
	demo      bool
	demoFile  string
	receipt   string // a Conformance Receipt to serve
	rate      float64
	burst     int
	maxBody   int64
	cpuProf   string
	prewarm   bool
	logs      *logBuffer    // the JSON log's batching (logbuf.go)
	timeouts  server.Config // only the timeout fields are read
	limits    server.Config // only the limit fields are read (limitFlags)
	cluster   clusterFlags  // --cluster and its flags (serve_cluster.go)
}

func (c *serveCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the store over HTTP: an RFC 0020 resolver (POST /oap/intent) and RFC 0023 storage endpoints",
		Long: "Serve the store in --dir until SIGINT or SIGTERM, then shut down gracefully.\n" +
			"An empty store gets a small public demo corpus first (--demo=false to skip).\n" +
			"Listening beyond loopback needs --auth (bearer tokens mapped to tenant DIDs).\n" +
			"Logs are JSON lines on stderr; server/README.md lists the endpoints.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("cache") {
				c.m.cacheDefault = serveCacheSize() // a server owns its process (servecache.go)
			}
			return c.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.addr, "addr", server.DefaultAddr, "listen address")
	f.StringVar(&c.authFile, "auth", "", "auth file: bearer tokens → tenant DIDs (required beyond loopback)")
	f.StringVar(&c.trustFile, "trust", "", "trust file mapping intent issuer DIDs to keys")
	f.StringVar(&c.publicURL, "public-url", "", "the server's public base URL (absolute manifest endpoints, did:web)")
	f.StringVar(&c.didWeb, "did-web", "", "the did:web published at /.well-known/did.json (default: from --public-url or the address)")
	f.StringVar(&c.receipt, "conformance-receipt", "", "an OAP Conformance Receipt (attest.js's output) to serve at /oap-conformance-receipt.json")
	f.BoolVar(&c.demo, "demo", true, "load a demo corpus into an empty store")
	f.StringVar(&c.demoFile, "demo-file", "testdata/demo/candidates.json", "extra demo documents (a JSON array), when the file exists")
	f.Float64Var(&c.rate, "rate-limit", server.DefaultRateLimit, "requests per second per caller (0: no limit)")
	f.IntVar(&c.burst, "rate-burst", server.DefaultRateBurst, "burst of the per-caller rate limit")
	f.Int64Var(&c.maxBody, "max-body", server.DefaultMaxBodyBytes, "request body limit in bytes (413 above)")
	f.DurationVar(&c.timeouts.ReadHeaderTimeout, "read-header-timeout", server.DefaultReadHeaderTimeout, "time a client has to send its headers")
	f.DurationVar(&c.timeouts.ReadTimeout, "read-timeout", server.DefaultReadTimeout, "time a client has to send its request")
	f.DurationVar(&c.timeouts.WriteTimeout, "write-timeout", server.DefaultWriteTimeout, "time to write a response (streams extend it per event)")
	f.DurationVar(&c.timeouts.IdleTimeout, "idle-timeout", server.DefaultIdleTimeout, "keep-alive idle time")
	f.DurationVar(&c.timeouts.ShutdownTimeout, "shutdown-timeout", server.DefaultShutdownTimeout, "time in-flight requests get on shutdown")
	f.DurationVar(&c.timeouts.QueryTimeout, "query-timeout", server.DefaultQueryTimeout, "time one query may run, regex matches included (503 query_timeout after)")
	f.BoolVar(&c.prewarm, "prewarm", false, "read the store once in the background after starting, to fill the block cache (see --cache)")
	f.StringVar(&c.cpuProf, "cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	f.DurationVar(&c.timeouts.Heartbeat, "heartbeat", server.DefaultHeartbeat, "interval of heartbeats on idle event streams")
	c.limitFlags(cmd)
	c.cluster.declare(cmd)
	return cmd
}

// limitFlags declares the flags of the server's limits; README.md lists
// them with what crossing each one answers.
func (c *serveCommand) limitFlags(cmd *cobra.Command) {
	f, l := cmd.Flags(), &c.limits
	f.Int64Var(&l.MaxImportBytes, "max-import-body", server.DefaultMaxImportBytes, "body limit in bytes of imports and NDJSON puts (413 above)")
	f.IntVar(&l.MaxQueries, "max-queries", server.DefaultMaxQueries, "intents resolved at once (503 above)")
	f.IntVar(&l.MaxPutDocuments, "max-put-documents", server.DefaultMaxPutDocuments, "documents in one NDJSON put (413 above)")
	f.Int64Var(&l.MaxWriteBytes, "max-write-bytes", server.DefaultMaxWriteBytes, "write request bytes in memory at once, half per caller (413 above a caller's share; 503 when busy)")
	f.IntVar(&l.MaxQueriesPerCaller, "max-queries-per-caller", server.DefaultMaxQueriesPerCaller, "intents one caller (tenant, else client address) resolves at once (429 above)")
	f.IntVar(&l.MaxStreams, "max-streams", server.DefaultMaxStreams, "event streams open at once (503 above)")
	f.IntVar(&l.MaxSubscriptions, "max-subscriptions", server.DefaultMaxSubscriptions, "subscription streams one caller may hold open (429 above)")
	f.IntVar(&l.MaxEventsPerMinute, "max-events-per-minute", server.DefaultMaxEventsPerMinute, "largest max_event_rate_per_minute a subscription may ask for (400 above)")
	f.IntVar(&l.MaxPageSize, "max-page-size", server.DefaultMaxPageSize, "largest ?page_size= of a full_set query (400 above)")
	f.IntVar(&l.MaxRejected, "max-rejected", server.DefaultMaxRejected, "rejected candidates listed per response (the rest are counted)")
}

func (c *serveCommand) run(ctx context.Context) error {
	if c.cluster.url != "" {
		return c.runCluster(ctx)
	}
	cfg, err := c.config()
	if err != nil {
		return err
	}
	defer c.logs.Close()      // last: after the server's and the store's final lines
	c.m.storeLog = cfg.Logger // the server's JSON log, so a store error reads like the rest
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	stop, err := startCPUProfile(c.cpuProf)
	if err != nil {
		return err
	}
	defer stop()
	setServeHeapFloor() // fewer collections of a small heap (heapfloor.go)
	if cfg.Signer, err = loadSigner(c.m.dir); err != nil {
		return err
	}
	// Bind before writing anything: a taken port must not leave a demo
	// corpus in a store the user meant to fill otherwise.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	cfg.Store, cfg.Index = s, c.m.ix
	srv, err := server.New(cfg)
	if err == nil {
		err = c.loadDemo(ctx, s)
	}
	if err != nil {
		ln.Close()
		return err
	}
	c.banner("http://"+ln.Addr().String(), srv, cfg.Signer)
	if c.prewarm {
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			prewarm(wctx, s, c.m.ix, cfg.Logger)
		}()
		defer func() { cancel(); <-done }() // before the store closes
	}
	return srv.Serve(ctx, ln)
}

// prewarm builds the index's in-memory rank order (index.Warm) and fills
// the block cache from the store (store.Prewarm) while the server
// already answers, logging progress every 10 s and the outcome.
func prewarm(ctx context.Context, s *store.Store, ix *index.Index, log *slog.Logger) {
	if ix != nil {
		t0 := time.Now()
		if err := ix.Warm(); err != nil {
			log.Error("prewarm: building the rank order failed; the first ranked page builds it", "err", err)
		} else {
			log.Info("prewarm: the rank order is in memory", "seconds", time.Since(t0).Seconds())
		}
	}
	log.Info("prewarm: reading the store into the block cache")
	last := time.Now()
	st, err := s.Prewarm(ctx, func(st store.PrewarmStats) {
		if time.Since(last) >= 10*time.Second {
			last = time.Now()
			log.Info("prewarm", "keys", st.Keys, "bytes", st.Bytes, "cache_bytes", st.CacheBytes)
		}
	})
	attrs := []any{"keys", st.Keys, "bytes", st.Bytes, "cache_bytes", st.CacheBytes, "cache_limit", st.CacheLimit,
		"seconds", st.Elapsed.Seconds()}
	switch {
	case err != nil && ctx.Err() != nil:
		log.Info("prewarm: stopped by shutdown", attrs...)
	case err != nil:
		log.Error("prewarm: read failed; the server goes on, reads fill the cache as they come", append(attrs, "err", err)...)
	case st.Full:
		log.Info("prewarm: the block cache is full; a larger --cache would hold more of the store", attrs...)
	default:
		log.Info("prewarm: done, the whole store was read", attrs...)
	}
}

// config builds the server configuration from the flags.
func (c *serveCommand) config() (server.Config, error) {
	cfg := c.timeouts
	cfg.Addr, cfg.PublicURL, cfg.DIDWeb, cfg.Version = c.addr, c.publicURL, c.didWeb, version()
	cfg.RateLimit, cfg.RateBurst, cfg.MaxBodyBytes = c.rate, c.burst, c.maxBody
	l := c.limits
	cfg.MaxImportBytes, cfg.MaxQueries, cfg.MaxStreams, cfg.MaxSubscriptions = l.MaxImportBytes, l.MaxQueries, l.MaxStreams, l.MaxSubscriptions
	cfg.MaxEventsPerMinute, cfg.MaxPageSize, cfg.MaxRejected = l.MaxEventsPerMinute, l.MaxPageSize, l.MaxRejected
	cfg.MaxQueriesPerCaller, cfg.MaxPutDocuments, cfg.MaxWriteBytes = l.MaxQueriesPerCaller, l.MaxPutDocuments, l.MaxWriteBytes
	if err := c.checkLimits(); err != nil {
		return cfg, err
	}
	if c.rate == 0 {
		cfg.RateLimit = -1
	}
	c.logs = newLogBuffer(c.m.Stderr, logFlushEvery)
	cfg.Logger = slog.New(logHandler{Handler: slog.NewJSONHandler(c.logs, nil), b: c.logs})
	var err error
	if c.authFile != "" {
		if cfg.Auth, err = server.LoadAuth(c.authFile); err != nil {
			return cfg, err
		}
	}
	if c.receipt != "" {
		if cfg.ConformanceReceipt, err = server.LoadConformanceReceipt(c.receipt); err != nil {
			return cfg, err
		}
	}
	if c.trustFile != "" {
		keys, err := sign.LoadTrustFile(c.trustFile)
		if err != nil {
			return cfg, err
		}
		cfg.Keys = keys
	}
	if !cfg.Auth.Enabled() && !server.IsLoopback(c.addr) {
		return cfg, usageError{fmt.Errorf("%w: --addr %s is not loopback; give --auth FILE or listen on 127.0.0.1", server.ErrNoAuth, c.addr)}
	}
	return cfg, nil
}

// checkLimits refuses a limit below 1 and a time that is not positive:
// the server would silently take its default instead, and a user writing
// 0 may well mean "no limit".
func (c *serveCommand) checkLimits() error {
	l := c.limits
	for _, f := range []struct {
		name string
		v    int64
	}{{"max-body", c.maxBody}, {"max-import-body", l.MaxImportBytes}, {"max-queries", int64(l.MaxQueries)},
		{"max-queries-per-caller", int64(l.MaxQueriesPerCaller)}, {"max-put-documents", int64(l.MaxPutDocuments)},
		{"max-write-bytes", l.MaxWriteBytes},
		{"max-streams", int64(l.MaxStreams)}, {"max-subscriptions", int64(l.MaxSubscriptions)},
		{"max-events-per-minute", int64(l.MaxEventsPerMinute)}, {"max-page-size", int64(l.MaxPageSize)},
		{"max-rejected", int64(l.MaxRejected)}} {
		if f.v < 1 {
			return usageError{fmt.Errorf("--%s %d: a limit must be at least 1", f.name, f.v)}
		}
	}
	// The same for the timeouts: 0 or a negative one would be the default.
	t := c.timeouts
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"read-header-timeout", t.ReadHeaderTimeout}, {"read-timeout", t.ReadTimeout}, {"write-timeout", t.WriteTimeout},
		{"idle-timeout", t.IdleTimeout}, {"shutdown-timeout", t.ShutdownTimeout}, {"query-timeout", t.QueryTimeout},
		{"heartbeat", t.Heartbeat}} {
		if f.v <= 0 {
			return usageError{fmt.Errorf("--%s %s: give a positive time (the server has no unlimited setting)", f.name, f.v)}
		}
	}
	return nil
}

// loadDemo fills an empty store with the demo corpus.
func (c *serveCommand) loadDemo(ctx context.Context, s *store.Store) error {
	if !c.demo {
		return nil
	}
	n, err := server.LoadDemo(ctx, s, c.demoFile)
	if err != nil {
		return err
	}
	if n > 0 {
		fmt.Fprintf(c.m.Stdout, "the store was empty: loaded a demo corpus of %d public documents\n", n)
	}
	return nil
}

// banner prints where the server listens, its DIDs and a first request.
func (c *serveCommand) banner(base string, srv *server.Server, signer *sign.Signer) {
	now := time.Now().UTC()
	intent := fmt.Sprintf(`{"intent_id":"urn:oap:intent:hello","issuer_did":"did:web:agent.example","category":"discovery",`+
		`"constraints":{"path":"/oap_version","operator":"exists","value":true},"projection":{"include":["/tool/name"]},`+
		`"validity":{"from":"%s","to":"%s"},"signature":{"alg":"EdDSA","value":"unsigned"}}`,
		now.Add(-time.Hour).Format(time.RFC3339), now.Add(24*time.Hour).Format(time.RFC3339))
	fmt.Fprintf(c.m.Stdout, "aqlstore serving %s on %s\n", c.m.dir, base)
	fmt.Fprintf(c.m.Stdout, "  resolver DID  %s\n  did:web       %s\n", signer.DID(), srv.DIDWeb())
	fmt.Fprintf(c.m.Stdout, "  manifest      curl -s %s/.well-known/oap-tool.json\n", base)
	fmt.Fprintf(c.m.Stdout, "  try           curl -s %s/oap/intent -H 'Content-Type: application/oap+json' -d '%s'\n", base, intent)
	fmt.Fprintf(c.m.Stdout, "stop with Ctrl-C (in-flight queries finish; streams end with an end event)\n")
}

// queryRemote posts an intent to a running server instead of opening the
// store, and prints what the store would print: the signed response, or
// the signed error document. The signature is checked under the key the
// server publishes at /.well-known/did.json. It backs `aqlstore query
// --server URL`.
func (m *Main) queryRemote(ctx context.Context, serverURL, token string, intent []byte) error {
	c := client.New(serverURL, token)
	body, err := c.Intent(ctx, intent)
	var ce *client.Error
	if errors.As(err, &ce) {
		_, _ = m.Stdout.Write(ce.Body)
		return err
	}
	if err != nil {
		return err
	}
	pub, err := c.ServerKey(ctx)
	if err == nil {
		err = client.Verify(body, pub)
	}
	if err != nil {
		return fmt.Errorf("the response does not verify under %s/.well-known/did.json: %w", serverURL, err)
	}
	if m.StdoutIsTerminal && !m.asJSON {
		if resp, include, err := remoteTable(body, intent); err == nil {
			return writeTable(m.Stdout, resp, include)
		}
	}
	_, err = m.Stdout.Write(body)
	return err
}

// startCPUProfile profiles the process into path until stop; no path, no
// profile.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
