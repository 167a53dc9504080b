package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server"
)

// run runs the command in process and returns its exit code and streams.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
	code := m.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

// serveDemo serves a new store holding the demo corpus, without a rate
// limit, on a loopback port, and returns its base URL.
func serveDemo(t *testing.T) string {
	t.Helper()
	st, ix, err := index.Open(filepath.Join(t.TempDir(), "store"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := server.LoadDemo(context.Background(), st, ""); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: st, Index: ix, Addr: "127.0.0.1:0", RateLimit: -1,
		Signer: sign.NewSigner(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))), Heartbeat: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestLoadtest(t *testing.T) {
	base := serveDemo(t)
	code, out, errs := run(t, "--json", "loadtest", "--url", base, "--requests", "40",
		"--concurrency", "4", "--duration", "1m")
	if code != 0 || !strings.Contains(out, `"ok":40`) || !strings.Contains(out, `"p99_ms"`) {
		t.Fatalf("loadtest: %d\n%s\n%s", code, out, errs)
	}
	// The demo corpus holds the first 300 generated manifests: every point
	// query finds its one candidate; beyond them, none does.
	code, out, errs = run(t, "--json", "loadtest", "--url", base, "--requests", "40",
		"--lookups", "300", "--duration", "1m")
	if code != 0 || !strings.Contains(out, `"ok":40`) || !strings.Contains(out, `"empty":0,`) {
		t.Fatalf("loadtest --lookups 300: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, "--json", "loadtest", "--url", base, "--requests", "40",
		"--lookups", "100000", "--duration", "1m")
	if code != 0 || strings.Contains(out, `"empty":0,`) {
		t.Fatalf("loadtest --lookups 100000 on 300 manifests counted no empty answer: %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := run(t, "loadtest", "--url", base, "--lookups", "3", "--intent", "x.json"); code != exitUsage {
		t.Fatalf("loadtest --lookups with --intent: %d %s", code, errs)
	}
	if code, _, errs := run(t, "loadtest", "--url", "http://192.0.2.1:80"); code != exitUsage {
		t.Fatalf("loadtest beyond loopback: %d %s", code, errs)
	}
	if code, _, _ := run(t, "loadtest", "--url", base, "--duration", "1h"); code != exitUsage {
		t.Fatalf("loadtest over the duration cap: %d", code)
	}
}

func TestUnknownCommandIsUsage(t *testing.T) {
	if code, _, errs := run(t, "put"); code != exitUsage || !strings.Contains(errs, "unknown command") {
		t.Fatalf("aqlbench put: %d %s", code, errs)
	}
}

// TestBenchRefusesBadSettings: a count or time out of range is a usage
// error naming its flag, before any engine loads.
func TestBenchRefusesBadSettings(t *testing.T) {
	out := t.TempDir()
	for _, c := range [][]string{{"--docs", "0"}, {"--batch", "0"}, {"--min-reps", "0"}, {"--min-reps", "5", "--max-reps", "2"},
		{"--warmup", "-1"}, {"--budget", "-1"}} {
		code, _, errs := run(t, append([]string{"bench", "--out", out, "--no-install"}, c...)...)
		if code != exitUsage || !strings.Contains(errs, c[len(c)-2]+" ") {
			t.Errorf("bench %v: exit %d, %s; want a usage error naming %s", c, code, errs, c[len(c)-2])
		}
	}
}
