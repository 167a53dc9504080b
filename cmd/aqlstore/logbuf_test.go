package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is stderr as a test sees it: written by the flush timer's
// goroutine, read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	n  int // writes
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedBuffer) writes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// newTestLog is the server's log over a buffer flushed every `every`
// (an hour: only by size, level, Flush and Close).
func newTestLog(every time.Duration) (*slog.Logger, *logBuffer, *lockedBuffer) {
	out := &lockedBuffer{}
	b := newLogBuffer(out, every)
	return slog.New(logHandler{Handler: slog.NewJSONHandler(b, nil), b: b}), b, out
}

// TestLogBufferBatchesRequestLines: info lines wait for the flush and go
// out together, in order.
func TestLogBufferBatchesRequestLines(t *testing.T) {
	log, b, out := newTestLog(time.Hour)
	defer b.Close()
	for i := range 3 {
		log.Info("request", "n", i)
	}
	if got := out.String(); got != "" {
		t.Fatalf("info lines were written before a flush: %q", got)
	}
	b.Flush()
	if n := out.writes(); n != 1 {
		t.Errorf("3 lines took %d writes, want 1", n)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines flushed, want 3: %q", len(lines), out.String())
	}
	for i, line := range lines {
		if !strings.Contains(line, fmt.Sprintf(`"n":%d}`, i)) {
			t.Errorf("line %d out of order or cut: %s", i, line)
		}
	}
}

// TestLogBufferTimerFlushes: a line reaches the writer without anyone
// calling Flush, and the timer is set again for the next one.
func TestLogBufferTimerFlushes(t *testing.T) {
	log, b, out := newTestLog(time.Millisecond)
	defer b.Close()
	for i := range 2 {
		log.Info("request", "n", i)
		deadline := time.Now().Add(10 * time.Second)
		for strings.Count(out.String(), `"msg":"request"`) < i+1 {
			if time.Now().After(deadline) {
				t.Fatalf("line %d never reached the writer: %q", i, out.String())
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// TestLogBufferWarnFlushes: a warning is on the writer when Warn
// returns, after the info lines logged before it.
func TestLogBufferWarnFlushes(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelWarn, slog.LevelError} {
		log, b, out := newTestLog(time.Hour)
		log.Info("before")
		log.Log(t.Context(), level, "trouble")
		got := out.String()
		if !strings.Contains(got, `"msg":"before"`) || !strings.Contains(got, `"msg":"trouble"`) ||
			strings.Index(got, "before") > strings.Index(got, "trouble") {
			t.Errorf("%v: after the call the writer holds %q", level, got)
		}
		// With attributes and groups the handler still flushes.
		log.With("a", 1).WithGroup("g").Warn("grouped")
		if !strings.Contains(out.String(), `"msg":"grouped"`) {
			t.Errorf("a warning through With/WithGroup waited in the buffer: %q", out.String())
		}
		b.Close()
	}
}

// TestLogBufferSizeFlushes: a full buffer is written at once, whole lines
// only.
func TestLogBufferSizeFlushes(t *testing.T) {
	log, b, out := newTestLog(time.Hour)
	defer b.Close()
	line := strings.Repeat("x", 1000)
	for out.writes() == 0 {
		log.Info("request", "pad", line)
		if len(b.buf) > logFlushSize {
			t.Fatalf("the buffer grew to %d bytes without a flush", len(b.buf))
		}
	}
	got := out.String()
	if !strings.HasSuffix(got, "}\n") || len(got) < logFlushSize {
		t.Fatalf("flushed %d bytes ending %q", len(got), got[max(0, len(got)-20):])
	}
}

// TestLogBufferClose: Close writes what waits and later lines go straight
// through (lines logged as the process exits).
func TestLogBufferClose(t *testing.T) {
	log, b, out := newTestLog(time.Hour)
	log.Info("pending")
	b.Close()
	if !strings.Contains(out.String(), `"msg":"pending"`) {
		t.Fatalf("Close left a line in the buffer: %q", out.String())
	}
	log.Info("late")
	if !strings.Contains(out.String(), `"msg":"late"`) {
		t.Fatalf("a line after Close waits in the buffer: %q", out.String())
	}
}

// TestLogBufferConcurrent: lines from many goroutines arrive whole, each
// once (run with -race).
func TestLogBufferConcurrent(t *testing.T) {
	log, b, out := newTestLog(time.Hour)
	const workers, each = 8, 500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				log.Info("request", "w", w, "i", i)
			}
		})
	}
	wg.Wait()
	b.Close()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != workers*each {
		t.Fatalf("%d lines, want %d", len(lines), workers*each)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		if !strings.HasPrefix(l, "{") || !strings.HasSuffix(l, "}") || seen[l] {
			t.Fatalf("cut or repeated line: %q", l)
		}
		seen[l] = true
	}
}
