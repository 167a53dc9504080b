package main

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/internal/cputime"
)

// The CPU a load test cost. On a shared machine queries per second move
// with the neighbours: the same build measured minutes apart differs by
// a fifth. The CPU time each query costs the server moves much less, so
// loadtest reports it beside the rate, read from the server's
// process_cpu_seconds_total (GET /metrics) before and after the run,
// with its own CPU time per query: on one machine the two share the
// cores, and the rate is about cores / (server + loadtest) per query.

// serverCPU reads process_cpu_seconds_total from base's /metrics; false
// when the server does not give it (another server, or /metrics
// refused).
func serverCPU(ctx context.Context, hc *http.Client, base, token string) (float64, bool) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/metrics", nil)
	if err != nil {
		return 0, false
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, false
	}
	return processCPUSeconds(bufio.NewScanner(resp.Body))
}

// processCPUSeconds finds process_cpu_seconds_total in a Prometheus text
// exposition.
func processCPUSeconds(sc *bufio.Scanner) (float64, bool) {
	const name = "process_cpu_seconds_total "
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f, err == nil
		}
	}
	return 0, false
}

// cpuPerQuery is what the run cost per successful query, in µs: the
// server's (when both readings were had) and the load test's own.
type cpuPerQuery struct {
	server, client       float64
	hasServer, hasClient bool
}

// cpuReading is the server's and this process's CPU time at one moment.
type cpuReading struct {
	server, client       float64 // seconds
	hasServer, hasClient bool
}

// readCPU takes a reading.
func readCPU(ctx context.Context, hc *http.Client, base, token string) cpuReading {
	var r cpuReading
	r.server, r.hasServer = serverCPU(ctx, hc, base, token)
	var d time.Duration
	d, r.hasClient = cputime.Process()
	r.client = d.Seconds()
	return r
}

// perQuery turns the readings taken before and after a run of ok
// successful queries into µs per query.
func perQuery(before, after cpuReading, ok int) cpuPerQuery {
	var c cpuPerQuery
	if ok == 0 {
		return c
	}
	if before.hasServer && after.hasServer && after.server >= before.server {
		c.server, c.hasServer = (after.server-before.server)*1e6/float64(ok), true
	}
	if before.hasClient && after.hasClient {
		c.client, c.hasClient = (after.client-before.client)*1e6/float64(ok), true
	}
	return c
}
