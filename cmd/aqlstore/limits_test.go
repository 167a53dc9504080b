package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/server"
)

// serveConfig parses args as serve's flags and returns the server
// configuration they give.
func serveConfig(t *testing.T, args ...string) (server.Config, error) {
	t.Helper()
	c := &serveCommand{m: &Main{Stdout: io.Discard, Stderr: io.Discard}}
	cmd := c.command()
	if err := cmd.Flags().Parse(args); err != nil {
		t.Fatalf("flags %v: %v", args, err)
	}
	return c.config()
}

// TestServeLimitFlags: every limit flag reaches the server's Config, each
// defaults to the server's default, and a limit below 1 is refused (the
// server would silently take its default).
func TestServeLimitFlags(t *testing.T) {
	cfg, err := serveConfig(t)
	if err != nil {
		t.Fatal(err)
	}
	def := server.Config{}
	def.EnsureDefaults()
	got := []any{cfg.MaxBodyBytes, cfg.MaxImportBytes, cfg.MaxQueries, cfg.MaxStreams, cfg.MaxSubscriptions,
		cfg.MaxEventsPerMinute, cfg.MaxPageSize, cfg.MaxRejected, cfg.MaxQueriesPerCaller, cfg.MaxPutDocuments, cfg.MaxWriteBytes}
	want := []any{def.MaxBodyBytes, def.MaxImportBytes, def.MaxQueries, def.MaxStreams, def.MaxSubscriptions,
		def.MaxEventsPerMinute, def.MaxPageSize, def.MaxRejected, def.MaxQueriesPerCaller, def.MaxPutDocuments, def.MaxWriteBytes}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("limit %d defaults to %v, the server's default is %v", i, got[i], want[i])
		}
	}
	flags := []string{"--max-body", "11", "--max-import-body", "12", "--max-queries", "13", "--max-streams", "14",
		"--max-subscriptions", "15", "--max-events-per-minute", "16", "--max-page-size", "17", "--max-rejected", "18",
		"--max-queries-per-caller", "19", "--max-put-documents", "20", "--max-write-bytes", "21"}
	cfg, err = serveConfig(t, flags...)
	if err != nil {
		t.Fatal(err)
	}
	got = []any{cfg.MaxBodyBytes, cfg.MaxImportBytes, cfg.MaxQueries, cfg.MaxStreams, cfg.MaxSubscriptions,
		cfg.MaxEventsPerMinute, cfg.MaxPageSize, cfg.MaxRejected, cfg.MaxQueriesPerCaller, cfg.MaxPutDocuments, cfg.MaxWriteBytes}
	want = []any{int64(11), int64(12), 13, 14, 15, 16, 17, 18, 19, 20, int64(21)}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s %s gave %v", flags[2*i], flags[2*i+1], got[i])
		}
	}
	for i := 0; i < len(flags); i += 2 {
		_, err := serveConfig(t, flags[i], "0")
		if _, usage := err.(usageError); !usage || !strings.Contains(err.Error(), flags[i]+" 0: a limit must be at least 1") {
			t.Errorf("%s 0: %v, want a usage error", flags[i], err)
		}
	}
	// A time of 0 or less would be the default too, not "no limit".
	for _, f := range []string{"--read-header-timeout", "--read-timeout", "--write-timeout", "--idle-timeout",
		"--shutdown-timeout", "--query-timeout", "--heartbeat"} {
		for _, v := range []string{"0", "-1s"} {
			_, err := serveConfig(t, f, v)
			if _, usage := err.(usageError); !usage || !strings.Contains(err.Error(), f+" ") || !strings.Contains(err.Error(), "give a positive time") {
				t.Errorf("%s %s: %v, want a usage error", f, v, err)
			}
		}
	}
	if _, err := serveConfig(t, "--query-timeout", "5s"); err != nil {
		t.Errorf("--query-timeout 5s: %v", err)
	}
}

// TestServeLimitFlagReachesServer: a limit set on the command line is the
// one a running server enforces and names.
func TestServeLimitFlagReachesServer(t *testing.T) {
	base, _, stop := startServe(t, filepath.Join(t.TempDir(), "store"), "--demo=false", "--max-page-size", "2")
	defer stop()
	intent := `{"intent_id": "urn:oap:intent:t", "issuer_did": "did:web:a.example", "category": "discovery",
		"constraints": {"path": "/oap_version", "operator": "exists", "value": true},
		"projection": {"include": ["/"]}, "resolution_policy": "full_set",
		"validity": {"from": "2020-01-01T00:00:00Z", "to": "2099-01-01T00:00:00Z"},
		"signature": {"alg": "EdDSA", "value": "x"}}`
	for size, want := range map[string]int{"2": 200, "3": 400} {
		resp, err := http.Post(base+"/oap/intent?page_size="+size, "application/oap+json", strings.NewReader(intent))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("page_size=%s: %d %s", size, resp.StatusCode, body)
		}
		if want == 400 && !strings.Contains(string(body), "--max-page-size 2") {
			t.Fatalf("page_size=%s: %s does not name the flag", size, body)
		}
	}
}
