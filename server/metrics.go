package server

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/aqlstore/aqlstore/store"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus collectors, in a private registry:
// embedding the server never touches prometheus.DefaultRegisterer.
type metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec   // route, code
	latency     *prometheus.HistogramVec // route
	evaluated   *prometheus.CounterVec   // plan
	streams     prometheus.Gauge
	events      *prometheus.CounterVec // type
	rateLimited prometheus.Counter
}

// planScan is the plan kind of a resolution without an index, of
// streamed full_set answers and of subscriptions (which evaluate each
// changed document).
const planScan = "scan"

func newMetrics(st *store.Store) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aqlstore_http_requests_total",
		Help: "HTTP requests by route and status code."}, []string{"route", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "aqlstore_http_request_duration_seconds",
		Help:    "Time to the end of the response, by route (streams: their whole life).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10, 60}}, []string{"route"})
	m.evaluated = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aqlstore_candidates_evaluated_total",
		Help: "Candidates evaluated exactly by resolutions and subscriptions, by plan kind."}, []string{"plan"})
	m.streams = prometheus.NewGauge(prometheus.GaugeOpts{Name: "aqlstore_sse_streams",
		Help: "Server-sent event streams open now."})
	m.events = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aqlstore_sse_events_total",
		Help: "Server-sent events written, by event type."}, []string{"type"})
	m.rateLimited = prometheus.NewCounter(prometheus.CounterOpts{Name: "aqlstore_rate_limited_total",
		Help: "Requests refused with 429."})
	m.reg.MustRegister(m.requests, m.latency, m.evaluated, m.streams, m.events, m.rateLimited,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.registerStore(st)
	return m
}

// registerStore adds the store's size: its receipt chain length (cheap)
// and its bytes on disk (a directory walk, cached for diskCacheTTL).
func (m *metrics) registerStore(st *store.Store) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "aqlstore_store_receipts",
		Help: "Length of the store's receipt chain (every put and delete)."},
		func() float64 { return float64(st.Head()) }))
	disk := &diskSize{dir: st.Dir()}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "aqlstore_store_disk_bytes",
		Help: "Bytes of the store's directory on disk."}, disk.bytes))
}

// observe records one finished request.
func (m *metrics) observe(route string, code int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// diskCacheTTL bounds how often a scrape walks the store's directory.
const diskCacheTTL = 10 * time.Second

// diskSize sums a directory's file sizes, caching the answer briefly.
type diskSize struct {
	dir  string
	mu   sync.Mutex
	at   time.Time
	last float64
}

func (d *diskSize) bytes() float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if time.Since(d.at) < diskCacheTTL {
		return d.last
	}
	var total int64
	_ = filepath.WalkDir(d.dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	d.at, d.last = time.Now(), float64(total)
	return d.last
}
