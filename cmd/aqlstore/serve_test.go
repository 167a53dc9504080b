package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer the serve goroutine writes while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listenLine = regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)

// startServe runs `aqlstore serve` on a loopback port in dir and returns
// its base URL and a function that stops it and returns its exit code.
func startServe(t *testing.T, dir string, extra ...string) (string, *syncBuffer, func() int) {
	t.Helper()
	var out, errb syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
	code := make(chan int, 1)
	args := append([]string{"--dir", dir, "serve", "--addr", "127.0.0.1:0", "--demo-file", ""}, extra...)
	go func() { code <- m.Run(ctx, args) }()
	var base string
	for base == "" {
		select {
		case c := <-code:
			t.Fatalf("serve exited with %d before listening:\n%s\n%s", c, out.String(), errb.String())
		case <-time.After(10 * time.Millisecond):
		}
		if mm := listenLine.FindStringSubmatch(out.String()); mm != nil {
			base = mm[1]
		}
	}
	stop := func() int { cancel(); return <-code }
	return base, &errb, stop
}

func TestServeDemoQueryAndShutdown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	base, logs, stop := startServe(t, dir)
	resp, err := http.Get(base + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", err, resp)
	}
	resp.Body.Close()

	var out bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &bytes.Buffer{}}
	intent := `{"intent_id": "urn:oap:intent:t", "issuer_did": "did:web:a.example", "category": "discovery",
		"constraints": {"path": "/oap_version", "operator": "exists", "value": true},
		"projection": {"include": ["/tool/name"]},
		"validity": {"from": "2020-01-01T00:00:00Z", "to": "2099-01-01T00:00:00Z"},
		"signature": {"alg": "EdDSA", "value": "x"}}`
	if err := m.queryRemote(context.Background(), base, "", []byte(intent)); err != nil {
		t.Fatalf("query --server: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), `"candidates":[{`) {
		t.Fatalf("the demo corpus answered nothing: %.300s", out.String())
	}
	// On a terminal the remote answer is the same table a local query
	// prints, its signature checked first.
	out.Reset()
	tty := &Main{Stdout: &out, Stderr: &bytes.Buffer{}, StdoutIsTerminal: true}
	if err := tty.queryRemote(context.Background(), base, "", []byte(intent)); err != nil {
		t.Fatalf("query --server on a terminal: %v\n%s", err, out.String())
	}
	if table := out.String(); !strings.HasPrefix(table, "RANK  CANDIDATE") || !strings.Contains(table, "/tool/name") ||
		!strings.Contains(table, " accepted, ") || strings.Contains(table, " evaluated") || strings.Contains(table, `"signature"`) {
		t.Fatalf("query --server on a terminal printed no table:\n%.600s", table)
	}
	out.Reset()
	bad := strings.Replace(intent, `"exists"`, `"starts_with"`, 1)
	if err := m.queryRemote(context.Background(), base, "", []byte(bad)); err == nil || !strings.Contains(out.String(), `"pointer":"/constraints/operator"`) {
		t.Fatalf("bad intent via --server: %v %s", err, out.String())
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited with %d after SIGINT-like cancel:\n%s", code, logs.String())
	}
	if !strings.Contains(logs.String(), `"msg":"request"`) || !strings.Contains(logs.String(), `"msg":"stopped"`) {
		t.Fatalf("logs lack JSON request and stop lines:\n%s", logs.String())
	}
}

func TestServeRefusesNonLoopbackWithoutAuth(t *testing.T) {
	code, _, errs := run(t, filepath.Join(t.TempDir(), "store"), "", "serve", "--addr", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(errs, "loopback") {
		t.Fatalf("serve on 0.0.0.0 without auth: %d %s", code, errs)
	}
}

func TestServePrewarm(t *testing.T) {
	base, logs, stop := startServe(t, filepath.Join(t.TempDir(), "store"), "--prewarm")
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(logs.String(), `"msg":"prewarm: done, the whole store was read"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no prewarm outcome in the log:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := http.Get(base + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz after the prewarm: %v %v", err, resp)
	}
	resp.Body.Close()
	if code := stop(); code != 0 {
		t.Fatalf("serve exited with %d:\n%s", code, logs.String())
	}
	if !regexp.MustCompile(`"msg":"prewarm: done, the whole store was read","keys":[1-9]\d*,"bytes":[1-9]`).MatchString(logs.String()) {
		t.Fatalf("the prewarm read nothing of the demo corpus:\n%s", logs.String())
	}
}

// TestServeBindsBeforeDemo: when the address is taken, serve fails before
// it writes the demo corpus into the empty store.
func TestServeBindsBeforeDemo(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := filepath.Join(t.TempDir(), "store")
	var out, errb bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
	code := m.Run(context.Background(), []string{"--dir", dir, "serve", "--addr", taken.Addr().String(), "--demo-file", ""})
	if code == 0 || !strings.Contains(errb.String(), "listen") {
		t.Fatalf("serve on a taken port: exit %d\n%s", code, errb.String())
	}
	if strings.Contains(out.String(), "demo corpus") {
		t.Fatalf("serve loaded the demo corpus before it could listen:\n%s", out.String())
	}
}
