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

// Ctrl-C during put's write phase stops after the batch in flight: exit
// 130, "interrupted" with what was stored, and the store holds whole
// batches only and verifies. The context is cancelled when put prints the
// first batch's refs (--json), so the cut falls mid-way, deterministically.
func TestPutInterruptedAfterBatchInFlight(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOnWrite{cancel: cancel}
	var errb bytes.Buffer
	m := &Main{Stdin: strings.NewReader(genOffers(2000)), Stdout: out, Stderr: &errb, StderrIsTerminal: true}
	code := m.Run(ctx, []string{"--dir", dir, "--json", "put", "--batch", "300", "-"})
	if code != 130 {
		t.Fatalf("exit %d, want %d; stderr: %s", code, 130, errb.String())
	}
	if !strings.Contains(errb.String()+out.buf.String(), "interrupted") {
		t.Errorf("no \"interrupted\" in the output: stderr %q, stdout %q", errb.String(), out.buf.String())
	}
	if strings.Contains(errb.String(), "100%") || !strings.Contains(errb.String(), "storing") {
		t.Errorf("the bar, shown, should stop where put did, not at 100%%: %q", errb.String())
	}
	if strings.Contains(errb.String(), "context canceled") {
		t.Errorf("stderr says %q, want interrupted", errb.String())
	}
	code, lsOut, lsErr := run(t, dir, "", "--json", "ls", "--kind", "offer")
	if code != 0 {
		t.Fatalf("ls: exit %d: %s", code, lsErr)
	}
	n := strings.Count(lsOut, "\n")
	if n == 0 || n%300 != 0 || n == 2000 {
		t.Errorf("%d offers stored, want a whole number of batches of 300, fewer than 2000", n)
	}
	if code, _, errs := run(t, dir, "", "verify"); code != 0 {
		t.Errorf("verify after the interrupted put: exit %d: %s", code, errs)
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
