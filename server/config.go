package server

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// Defaults of Config. The timeouts bound ordinary requests; streams extend
// their own deadlines per write (StreamWriteTimeout).
const (
	DefaultAddr                = "127.0.0.1:8080"
	DefaultMaxBodyBytes        = 1 << 20   // an intent or one document (aql.DefaultMaxBytes)
	DefaultMaxImportBytes      = 256 << 20 // an export being imported
	DefaultReadHeaderTimeout   = 5 * time.Second
	DefaultReadTimeout         = 30 * time.Second
	DefaultWriteTimeout        = 2 * time.Minute
	DefaultIdleTimeout         = 2 * time.Minute
	DefaultShutdownTimeout     = 30 * time.Second
	DefaultQueryTimeout        = 90 * time.Second
	DefaultRateLimit           = 1000 // requests per second per caller
	DefaultRateBurst           = 1000
	DefaultHeartbeat           = 15 * time.Second
	DefaultStreamWriteTimeout  = 30 * time.Second
	DefaultMaxStreams          = 1000
	DefaultMaxQueries          = 64              // intents resolved at once; 503 beyond
	DefaultMaxQueriesPerCaller = 16              // intents one caller has resolved at once; 429 beyond
	DefaultMaxPutDocuments     = 10000           // documents in one put; 413 beyond
	DefaultMaxWriteBytes       = 64 << 20        // write request bytes in memory at once, half per caller
	DefaultWriteWait           = 2 * time.Second // a write waits this long for write memory, then 503
	DefaultMaxSubscriptions    = 32              // subscription streams one caller holds open; 429 beyond
	DefaultMaxEventsPerMinute  = aql.DefaultMaxEventRate
	DefaultMaxPageSize         = 1000                     // ?page_size= of a full_set query
	DefaultMaxRejected         = query.DefaultMaxRejected // rejected candidates listed in one response
	DefaultMaxHeaderBytes      = 64 << 10
	DefaultSignedWindow        = 5 * time.Minute
)

// Config configures a Server. Zero fields take their defaults
// (EnsureDefaults); Store and Signer are required.
type Config struct {
	// Store is the store served. The caller opens and closes it.
	Store *store.Store
	// Index is the store's index (index.Open); nil resolves every intent
	// by a full scan, with identical answers.
	Index *index.Index
	// Signer signs every response, event, error and export.
	Signer *sign.Signer
	// Keys resolves intent issuers' keys (a trust file); nil resolves
	// did:key only.
	Keys sign.Resolver
	// Auth maps bearer tokens to tenants; nil means no authentication, which
	// is allowed on loopback addresses only.
	Auth *Auth
	// Addr is the listen address (default 127.0.0.1:8080).
	Addr string
	// PublicURL, when set (e.g. https://resolver.example), makes the
	// manifest's endpoints absolute and names the did:web; otherwise
	// endpoints are paths and the did:web names the listen address.
	PublicURL string
	// DIDWeb overrides the did:web of /.well-known/did.json.
	DIDWeb string
	// Version is the software version the manifest names.
	Version string
	// ConformanceReceipt is an OAP Conformance Receipt of this deployment
	// (LoadConformanceReceipt), served verbatim at
	// /oap-conformance-receipt.json; nil answers 404 there.
	ConformanceReceipt []byte
	// Logger receives one JSON line per request and the server's events
	// (default: discard).
	Logger *slog.Logger

	MaxBodyBytes       int64         // request body limit; 413 above it
	MaxImportBytes     int64         // body limit of POST /storage/import
	ReadHeaderTimeout  time.Duration // a client holding its headers longer is cut off
	ReadTimeout        time.Duration // whole request, body included
	WriteTimeout       time.Duration // ordinary responses; streams extend it per write
	IdleTimeout        time.Duration // keep-alive connections
	ShutdownTimeout    time.Duration // in-flight requests get this long after a shutdown signal
	QueryTimeout       time.Duration // one resolution
	RateLimit          float64       // requests per second per caller; negative disables
	RateBurst          int           // bucket size of the rate limit
	Heartbeat          time.Duration // SSE comment interval that keeps idle streams alive
	StreamWriteTimeout time.Duration // one SSE write; a client slower than this is dropped
	MaxStreams         int           // concurrent SSE streams; 503 beyond
	MaxQueries         int           // intents resolved at once (POST /oap/intent); 503 beyond
	// MaxQueriesPerCaller bounds the intents one caller (a tenant, else an
	// anonymous client address) has resolved at once; 429 beyond.
	MaxQueriesPerCaller int
	// MaxPutDocuments bounds the documents of one NDJSON put; 413 beyond.
	MaxPutDocuments int
	// MaxWriteBytes bounds the bytes of write request bodies (puts,
	// imports, AIDP messages) held in memory at once, half of it per
	// caller: a body over the share is 413, and a write that finds no
	// room within WriteWait is 503 with Retry-After.
	MaxWriteBytes      int64
	WriteWait          time.Duration
	MaxSubscriptions   int // subscription streams open per caller; 429 beyond
	MaxEventsPerMinute int // the max_event_rate_per_minute a subscription may ask for; 400 beyond
	MaxPageSize        int // largest ?page_size= of a full_set query; 400 beyond
	MaxRejected        int // rejected candidates listed per response; the rest are counted
	MaxHeaderBytes     int // 431 beyond
	// SignedRequestWindow is how far a signed request's created time may
	// be from the server's clock; its nonce is remembered twice as long.
	SignedRequestWindow time.Duration

	// Now is the clock (default time.Now); tests move it.
	Now func() time.Time
}

// EnsureDefaults fills zero fields with their defaults and returns c.
func (c *Config) EnsureDefaults() *Config {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	if c.Version == "" {
		c.Version = "devel"
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	c.ensureLimits()
	c.ensureTimeouts()
	return c
}

func (c *Config) ensureLimits() {
	c.MaxBodyBytes = orDefault(c.MaxBodyBytes, DefaultMaxBodyBytes)
	c.MaxImportBytes = orDefault(c.MaxImportBytes, DefaultMaxImportBytes)
	c.RateBurst = orDefault(c.RateBurst, DefaultRateBurst)
	c.MaxStreams = orDefault(c.MaxStreams, DefaultMaxStreams)
	c.MaxHeaderBytes = orDefault(c.MaxHeaderBytes, DefaultMaxHeaderBytes)
	c.MaxQueries = orDefault(c.MaxQueries, DefaultMaxQueries)
	c.MaxQueriesPerCaller = orDefault(c.MaxQueriesPerCaller, DefaultMaxQueriesPerCaller)
	c.MaxPutDocuments = orDefault(c.MaxPutDocuments, DefaultMaxPutDocuments)
	c.MaxWriteBytes = orDefault(c.MaxWriteBytes, DefaultMaxWriteBytes)
	c.MaxSubscriptions = orDefault(c.MaxSubscriptions, DefaultMaxSubscriptions)
	c.MaxEventsPerMinute = orDefault(c.MaxEventsPerMinute, DefaultMaxEventsPerMinute)
	c.MaxPageSize = orDefault(c.MaxPageSize, DefaultMaxPageSize)
	c.MaxRejected = orDefault(c.MaxRejected, DefaultMaxRejected)
	if c.RateLimit == 0 {
		c.RateLimit = DefaultRateLimit
	}
}

func (c *Config) ensureTimeouts() {
	c.ReadHeaderTimeout = orDefault(c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	c.ReadTimeout = orDefault(c.ReadTimeout, DefaultReadTimeout)
	c.WriteTimeout = orDefault(c.WriteTimeout, DefaultWriteTimeout)
	c.IdleTimeout = orDefault(c.IdleTimeout, DefaultIdleTimeout)
	c.ShutdownTimeout = orDefault(c.ShutdownTimeout, DefaultShutdownTimeout)
	c.QueryTimeout = orDefault(c.QueryTimeout, DefaultQueryTimeout)
	c.Heartbeat = orDefault(c.Heartbeat, DefaultHeartbeat)
	c.StreamWriteTimeout = orDefault(c.StreamWriteTimeout, DefaultStreamWriteTimeout)
	c.SignedRequestWindow = orDefault(c.SignedRequestWindow, DefaultSignedWindow)
	c.WriteWait = orDefault(c.WriteWait, DefaultWriteWait)
}

func orDefault[T int | int64 | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// Validate reports the first field that is missing or inconsistent, and
// refuses (ErrNoAuth) an Addr beyond loopback without Auth.
func (c *Config) Validate() error {
	switch {
	case c.Store == nil:
		return fmt.Errorf("%w: Store is required", ErrConfig)
	case c.Signer == nil:
		return fmt.Errorf("%w: Signer is required", ErrConfig)
	}
	if c.PublicURL != "" {
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%w: PublicURL %q: want an absolute http(s) URL like https://resolver.example", ErrConfig, c.PublicURL)
		}
	}
	if !c.Auth.Enabled() && !IsLoopback(c.Addr) {
		return fmt.Errorf("%w: %s is not a loopback address; configure bearer tokens (--auth FILE) or listen on 127.0.0.1",
			ErrNoAuth, c.Addr)
	}
	return nil
}

// IsLoopback reports whether addr (host:port, or a host) names only the
// loopback interface: localhost, 127.0.0.0/8 or ::1. An empty host (every
// interface) is not loopback.
func IsLoopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// didWebFor returns the did:web naming host (host[:port]), with the port's
// colon percent-encoded as the did:web method requires.
func didWebFor(host string) string {
	return "did:web:" + strings.ReplaceAll(host, ":", "%3A")
}
