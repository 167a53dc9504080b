package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// cancelOnWrite cancels a context at the first write after it was armed.
type cancelOnWrite struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cancel()
	return w.buf.Write(p)
}

// genOffers is n NDJSON offers with distinct keys.
func genOffers(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"offer_id\":\"o-%d\",\"price\":\"%d.00\"}\n", i, i+1)
	}
	return b.String()
}

// Ctrl-C while put loads stores nothing of the input: a load is ingested
// in one atomic step at its end, so an interrupted one leaves the store as
// it was (exit 130, "interrupted"), verifying, and a second put stores it
// all. The context is cancelled when the progress bar is first drawn,
// while the input is being read.
func TestPutInterruptedStoresNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	if code, _, errs := run(t, dir, genOffers(10), "put", "-"); code != 0 {
		t.Fatalf("put: exit %d: %s", code, errs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errw := &cancelOnWrite{cancel: cancel}
	var out bytes.Buffer
	m := &Main{Stdin: strings.NewReader(genOffers(2000)), Stdout: &out, Stderr: errw, StderrIsTerminal: true}
	code := m.Run(ctx, []string{"--dir", dir, "--json", "put", "-"})
	errs := errw.buf.String()
	if code != 130 || !strings.Contains(errs+out.String(), "interrupted") || strings.Contains(errs, "context canceled") {
		t.Fatalf("exit %d, want 130 and \"interrupted\"; stderr: %q", code, errs)
	}
	count := func() int {
		code, lsOut, lsErr := run(t, dir, "", "--json", "ls", "--kind", "offer")
		if code != 0 {
			t.Fatalf("ls: exit %d: %s", code, lsErr)
		}
		return strings.Count(lsOut, "\n")
	}
	if n := count(); n != 10 {
		t.Errorf("%d offers stored after the interrupted put, want the 10 stored before", n)
	}
	if code, _, errs := run(t, dir, "", "verify"); code != 0 {
		t.Errorf("verify after the interrupted put: exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, dir, genOffers(2000), "put", "-"); code != 0 {
		t.Fatalf("put again: exit %d: %s", code, errs)
	}
	if n := count(); n != 2000 {
		t.Errorf("%d offers after putting again, want 2000", n)
	}
}

// Ctrl-C before put has stored anything (during the check phase), and
// during import and reindex, exits 130 with "interrupted".
func TestInterruptedCommandsExit130(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	if code, _, errs := run(t, dir, genOffers(10), "put", "-"); code != 0 {
		t.Fatalf("put: exit %d: %s", code, errs)
	}
	code, export, errs := run(t, dir, "", "export")
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	exportFile := writeFile(t, tmp, "export.json", export)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{{"--dir", dir, "put", "-"}, {"--dir", filepath.Join(tmp, "other"), "import", exportFile},
		{"--dir", dir, "reindex"}} {
		var out, errb bytes.Buffer
		m := &Main{Stdin: strings.NewReader(genOffers(50)), Stdout: &out, Stderr: &errb}
		code := m.Run(ctx, args)
		if code != 130 || !strings.Contains(errb.String(), "aqlstore: interrupted") {
			t.Errorf("%v cancelled: exit %d, stderr %q; want %d and \"interrupted\"", args, code, errb.String(), 130)
		}
	}
	code, lsOut, _ := run(t, dir, "", "--json", "ls", "--kind", "offer")
	if n := strings.Count(lsOut, "\n"); code != 0 || n != 10 {
		t.Errorf("after the interrupted put: exit %d, %d offers, want the 10 stored before", code, n)
	}
}
