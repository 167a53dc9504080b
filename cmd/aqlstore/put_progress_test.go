package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// On a terminal put shows progress while it loads, and its summary
// starts a line of its own after the bar.
func TestPutProgressOnTerminal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	var out, errb bytes.Buffer
	m := &Main{Stdin: strings.NewReader(genOffers(50)), Stdout: &out, Stderr: &errb, StderrIsTerminal: true}
	if code := m.Run(context.Background(), []string{"--dir", dir, "put", "-"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	errs := errb.String()
	if !strings.Contains(errs, "loading") {
		t.Errorf("stderr shows no progress:\n%q", errs)
	}
	if !strings.Contains(errs, "\nstored 50 documents") {
		t.Errorf("the summary does not start a line of its own:\n%q", errs)
	}
}

// A rate is shown only from enough time and documents to mean something.
func TestPutRate(t *testing.T) {
	for _, c := range []struct {
		n    int
		el   time.Duration
		want string
	}{
		{1000, 110 * time.Microsecond, ""},
		{1000, 50 * time.Millisecond, ""},
		{5, time.Second, ""},
		{1000, time.Second, "1000 docs/s"},
		{30000, 1500 * time.Millisecond, "20000 docs/s"},
	} {
		if got := rate(c.n, c.el); got != c.want {
			t.Errorf("rate(%d, %s) = %q, want %q", c.n, c.el, got, c.want)
		}
	}
}
