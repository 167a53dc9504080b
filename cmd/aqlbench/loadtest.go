package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/aqlstore/aqlstore/server"
	"github.com/spf13/cobra"
)

// Caps of a load test: it is a bounded tool for one's own server on
// loopback, never a flood aimed elsewhere.
const (
	maxLoadRequests    = 10_000_000
	maxLoadDuration    = 5 * time.Minute
	maxLoadConcurrency = 256
)

// loadtestCommand posts one intent to a local server as fast as it
// answers, within a request count and a duration, and reports QPS and
// latency percentiles.
type loadtestCommand struct {
	m           *Main
	url         string
	intentFile  string
	token       string
	requests    int
	duration    time.Duration
	concurrency int
	lookups     int
}

func (c *loadtestCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "loadtest",
		Short: "Post an intent to a local aqlstore server, bounded in count and time; report QPS, p50/p95/p99 and CPU per query",
		Long: "Post an intent to a server on loopback (127.0.0.1, ::1, localhost only) from --concurrency\n" +
			"workers until --requests are sent or --duration passes. The default intent is a selective\n" +
			"discovery query on the generated manifest corpus (the rarest controlled predicate).\n" +
			"With --lookups N, each request is instead a point query for the /tool/id of a random one of\n" +
			"the first N generated manifests (`aqlstore gen --kind manifest`, seed 1), answered with one\n" +
			"candidate by a store that holds them; responses without a candidate are counted as empty.\n" +
			"Start the server with --rate-limit 0, or 429s are counted as errors.\n" +
			"The report gives the CPU time per answered query of the server (its process_cpu_seconds_total,\n" +
			"from GET /metrics before and after the run) and of the load test itself.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
	f := cmd.Flags()
	f.StringVar(&c.url, "url", "http://"+server.DefaultAddr, "the server's base URL (loopback only)")
	f.StringVar(&c.intentFile, "intent", "", "intent file to post (default: a selective manifest query)")
	f.StringVar(&c.token, "token", "", "bearer token to send")
	f.IntVar(&c.requests, "requests", 100_000, fmt.Sprintf("requests to send at most (≤ %d)", maxLoadRequests))
	f.DurationVar(&c.duration, "duration", 10*time.Second, fmt.Sprintf("time to run at most (≤ %s)", maxLoadDuration))
	f.IntVar(&c.lookups, "lookups", 0, "post point queries over the first N generated manifests instead of one intent")
	f.IntVar(&c.concurrency, "concurrency", 2*runtime.GOMAXPROCS(0), fmt.Sprintf("concurrent workers (≤ %d)", maxLoadConcurrency))
	return cmd
}

func (c *loadtestCommand) run(ctx context.Context) error {
	if err := c.check(); err != nil {
		return usageError{err}
	}
	bodies, err := c.bodies()
	if err != nil {
		return err
	}
	hc := &http.Client{}
	before := readCPU(ctx, hc, c.url, c.token)
	res := c.load(ctx, bodies)
	res.cpu = perQuery(before, readCPU(ctx, hc, c.url, c.token), len(res.latencies))
	return c.report(res)
}

// check enforces the caps and the loopback rule.
func (c *loadtestCommand) check() error {
	u, err := url.Parse(c.url)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("--url %q: want http://127.0.0.1:PORT", c.url)
	case !server.IsLoopback(u.Host):
		return fmt.Errorf("--url %s: loadtest runs against loopback addresses only", c.url)
	case c.requests < 1 || c.requests > maxLoadRequests:
		return fmt.Errorf("--requests must be 1 to %d", maxLoadRequests)
	case c.duration <= 0 || c.duration > maxLoadDuration:
		return fmt.Errorf("--duration must be positive and at most %s", maxLoadDuration)
	case c.concurrency < 1 || c.concurrency > maxLoadConcurrency:
		return fmt.Errorf("--concurrency must be 1 to %d", maxLoadConcurrency)
	case c.lookups < 0:
		return fmt.Errorf("--lookups must be a number of manifests, not %d", c.lookups)
	case c.lookups > 0 && c.intentFile != "":
		return fmt.Errorf("--lookups and --intent each choose what to post; give one")
	}
	return nil
}

// bodyFunc appends the body of a worker's next request to dst; each
// worker has its own random source.
type bodyFunc func(dst []byte, rng *rand.Rand) []byte

// bodies is what the workers post: --intent's file, point queries
// (--lookups), or the default selective query.
func (c *loadtestCommand) bodies() (bodyFunc, error) {
	if c.intentFile != "" {
		b, err := os.ReadFile(c.intentFile)
		if err != nil {
			return nil, err
		}
		return func(dst []byte, _ *rand.Rand) []byte { return append(dst, b...) }, nil
	}
	if c.lookups > 0 {
		return lookupBodies(c.lookups), nil
	}
	preds := corpus.Predicates(corpus.KindManifest)
	p := slices.MinFunc(preds, func(a, b corpus.Predicate) int { return cmp.Compare(a.Selectivity, b.Selectivity) })
	b := loadIntent(map[string]any{"path": p.Path, "operator": p.Operator, "value": toCanon(p.Value)})
	return func(dst []byte, _ *rand.Rand) []byte { return append(dst, b...) }, nil
}

// lookupMark stands for the tool id in the point query's template.
const lookupMark = "\x00tool-id\x00"

// lookupBodies gives point queries: /tool/id eq the id of manifest i of
// the generated corpus (seed 1), i uniform below n.
func lookupBodies(n int) bodyFunc {
	tmpl := loadIntent(map[string]any{"path": "/tool/id", "operator": "eq", "value": lookupMark})
	before, after, _ := bytes.Cut(tmpl, []byte(canon.AppendValue(nil, lookupMark)))
	return func(dst []byte, rng *rand.Rand) []byte {
		dst = append(dst, before...)
		dst = append(dst, `"tool-1-`...)
		dst = strconv.AppendInt(dst, int64(rng.IntN(n)), 10)
		dst = append(dst, '"')
		return append(dst, after...)
	}
}

// loadIntent is an unsigned discovery intent with constraints c,
// projecting /tool/name, valid for longer than any load test runs.
func loadIntent(c map[string]any) []byte {
	now := time.Now().UTC()
	doc := map[string]any{
		"intent_id": "urn:oap:intent:loadtest", "issuer_did": "did:web:loadtest.example", "category": "discovery",
		"constraints": c,
		"projection":  map[string]any{"include": []any{"/tool/name"}},
		"validity": map[string]any{"from": now.Add(-time.Hour).Format(time.RFC3339),
			"to": now.Add(maxLoadDuration + time.Hour).Format(time.RFC3339)},
		"signature": map[string]any{"alg": "EdDSA", "value": "unsigned"},
	}
	return canon.AppendValue(nil, doc)
}

// toCanon converts a predicate's Go value to canon's value model.
func toCanon(v any) any {
	switch v := v.(type) {
	case int:
		return canon.Number(fmt.Sprint(v))
	case int64:
		return canon.Number(fmt.Sprint(v))
	case float64:
		return canon.Number(fmt.Sprint(v))
	}
	return v
}

// loadResult is what the workers measured.
type loadResult struct {
	elapsed   time.Duration
	latencies []time.Duration // successful requests
	statuses  map[int]int     // by HTTP status; 0 = transport error
	empty     int             // successful responses without a candidate
	candidate int             // bytes of one successful response, for the report
	cpu       cpuPerQuery     // CPU per successful query, server and load test
}

// load runs the workers.
func (c *loadtestCommand) load(ctx context.Context, bodies bodyFunc) *loadResult {
	ctx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c.concurrency, MaxIdleConns: c.concurrency}}
	u, _ := url.Parse(c.url) // check accepted it
	path := strings.TrimSuffix(u.Path, "/") + "/oap/intent"
	viaHTTP := httpPost{hc: hc, endpoint: strings.TrimSuffix(c.url, "/") + "/oap/intent", token: c.token}
	var sent atomic.Int64
	var mu sync.Mutex
	res := &loadResult{statuses: map[int]int{}}
	var wg sync.WaitGroup
	start := time.Now()
	for w := range c.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano())))
			post := viaHTTP.post
			if u.Scheme == "http" {
				lc := newLoadConn(hostPort(u), u.Host, path, c.token)
				defer lc.close()
				post = lc.post
			}
			r := c.worker(ctx, post, bodies, rng, &sent)
			mu.Lock()
			defer mu.Unlock()
			res.latencies = append(res.latencies, r.latencies...)
			for k, v := range r.statuses {
				res.statuses[k] += v
			}
			res.empty += r.empty
			res.candidate = max(res.candidate, r.candidate)
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

// worker posts until the count or the time runs out.
func (c *loadtestCommand) worker(ctx context.Context, post postFunc, bodies bodyFunc, rng *rand.Rand, sent *atomic.Int64) *loadResult {
	res := &loadResult{statuses: map[int]int{}}
	var body []byte
	var resp bytes.Buffer
	for ctx.Err() == nil && sent.Add(1) <= int64(c.requests) {
		body = bodies(body[:0], rng)
		resp.Reset()
		t0 := time.Now()
		status, err := post(ctx, body, &resp)
		if err != nil && (ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded)) {
			break // cut by the deadline, not an error of the server
		}
		if err != nil {
			status = 0 // counted as a transport error
		}
		res.statuses[status]++
		if status == http.StatusOK {
			res.latencies = append(res.latencies, time.Since(t0))
			res.candidate = resp.Len()
			if !bytes.Contains(resp.Bytes(), []byte(`"candidates":[{`)) {
				res.empty++
			}
		}
	}
	return res
}

// postFunc sends one request, reads the answer into resp and returns the
// status, or the transport error.
type postFunc func(ctx context.Context, body []byte, resp *bytes.Buffer) (int, error)

// hostPort is u's host with the port made explicit.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// httpPost posts through net/http: an https URL's workers.
type httpPost struct {
	hc       *http.Client
	endpoint string // the intent endpoint's URL
	token    string
}

// post sends one request, reads the answer into resp and returns the
// status, or the transport error.
func (h httpPost) post(ctx context.Context, body []byte, resp *bytes.Buffer) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/oap+json")
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	r, err := h.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer r.Body.Close()
	if _, err := resp.ReadFrom(r.Body); err != nil {
		return 0, err
	}
	return r.StatusCode, nil
}

// report prints the totals and percentiles.
func (c *loadtestCommand) report(res *loadResult) error {
	sort.Slice(res.latencies, func(i, j int) bool { return res.latencies[i] < res.latencies[j] })
	ok := len(res.latencies)
	qps := float64(ok) / res.elapsed.Seconds()
	p := func(q float64) time.Duration { return percentile(res.latencies, q) }
	errors := 0
	for st, n := range res.statuses {
		if st != http.StatusOK {
			errors += n
		}
	}
	if c.m.asJSON {
		out := map[string]any{"ok": ok, "errors": errors, "empty": res.empty, "statuses": res.statuses,
			"seconds": res.elapsed.Seconds(), "qps": qps, "p50_ms": ms(p(0.50)), "p95_ms": ms(p(0.95)),
			"p99_ms": ms(p(0.99)), "max_ms": ms(p(1)), "concurrency": c.concurrency, "response_bytes": res.candidate}
		if res.cpu.hasServer {
			out["server_cpu_us_per_query"] = res.cpu.server
		}
		if res.cpu.hasClient {
			out["loadtest_cpu_us_per_query"] = res.cpu.client
		}
		return c.m.printJSON(out)
	}
	fmt.Fprintf(c.m.Stdout, "%d ok (%d without a candidate), %d errors %v in %.2fs with %d workers: %.0f queries/s\n",
		ok, res.empty, errors, res.statuses, res.elapsed.Seconds(), c.concurrency, qps)
	fmt.Fprintf(c.m.Stdout, "latency p50 %.3f ms  p95 %.3f ms  p99 %.3f ms  max %.3f ms  (response %d bytes)\n",
		ms(p(0.50)), ms(p(0.95)), ms(p(0.99)), ms(p(1)), res.candidate)
	switch cpu := res.cpu; {
	case cpu.hasServer && cpu.hasClient:
		fmt.Fprintf(c.m.Stdout, "CPU per query: server %.0f µs (its process_cpu_seconds_total), loadtest %.0f µs\n", cpu.server, cpu.client)
	case cpu.hasClient && ok > 0:
		fmt.Fprintf(c.m.Stdout, "CPU per query: loadtest %.0f µs (the server's /metrics gave no process_cpu_seconds_total)\n", cpu.client)
	}
	if ok == 0 {
		return fmt.Errorf("no request succeeded (statuses %v; 0 = no connection)", res.statuses)
	}
	return nil
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
