package main

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestProcessCPUSeconds(t *testing.T) {
	for _, c := range []struct {
		text string
		want float64
		ok   bool
	}{
		{"# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n" +
			"# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 12.75\nprocess_open_fds 9\n", 12.75, true},
		{"process_cpu_seconds_total_other 3\nprocess_cpu_seconds_total 1e+02\n", 100, true},
		{"go_goroutines 7\n", 0, false},
		{"process_cpu_seconds_total many\n", 0, false},
	} {
		got, ok := processCPUSeconds(bufio.NewScanner(strings.NewReader(c.text)))
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %v %v, want %v %v", c.text, got, ok, c.want, c.ok)
		}
	}
}

func TestPerQuery(t *testing.T) {
	before := cpuReading{server: 10, client: 1, hasServer: true, hasClient: true}
	after := cpuReading{server: 10.5, client: 1.25, hasServer: true, hasClient: true}
	if c := perQuery(before, after, 1000); !c.hasServer || !c.hasClient || c.server != 500 || c.client != 250 {
		t.Errorf("perQuery: %+v, want server 500 and loadtest 250 µs", c)
	}
	// A server restarted during the run (its counter went back) or one
	// without the metric gives no server figure.
	if c := perQuery(before, cpuReading{server: 2, hasServer: true}, 1000); c.hasServer || c.hasClient {
		t.Errorf("perQuery over a restart: %+v, want no figure", c)
	}
	if c := perQuery(before, after, 0); c.hasServer || c.hasClient {
		t.Errorf("perQuery of no query: %+v", c)
	}
}

// TestLoadtestReportsCPU: against an aqlstore server the report gives
// the server's CPU per query; against a server without /metrics, only
// the load test's own.
func TestLoadtestReportsCPU(t *testing.T) {
	base := serveDemo(t)
	code, out, errs := run(t, "loadtest", "--url", base, "--requests", "40", "--lookups", "300", "--duration", "1m")
	if code != 0 || !strings.Contains(out, "CPU per query: server ") {
		t.Fatalf("loadtest against aqlstore: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, "--json", "loadtest", "--url", base, "--requests", "40", "--lookups", "300", "--duration", "1m")
	if code != 0 || !strings.Contains(out, `"server_cpu_us_per_query":`) || !strings.Contains(out, `"loadtest_cpu_us_per_query":`) {
		t.Fatalf("loadtest --json against aqlstore: %d\n%s\n%s", code, out, errs)
	}
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/oap/intent" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/oap+json")
		_, _ = w.Write([]byte(`{"candidates":[{"candidate_id":"x"}]}`))
	}))
	defer bare.Close()
	code, out, errs = run(t, "loadtest", "--url", bare.URL, "--requests", "20", "--duration", "1m")
	if code != 0 || strings.Contains(out, "server ") || !strings.Contains(out, "gave no process_cpu_seconds_total") {
		t.Fatalf("loadtest against a server without /metrics: %d\n%s\n%s", code, out, errs)
	}
}
