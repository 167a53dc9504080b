package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logBuffer batches the server's JSON log lines on their way to stderr.
// A line per request written at once costs a write system call each,
// about 2% of a point query's CPU under load; batched, a busy server
// writes at most every logFlushEvery or every logFlushSize bytes. Lines
// of level Warn and above go out at once, with whatever waits before
// them (logHandler), and Close writes the rest: what a crash can lose is
// the request lines of its last logFlushEvery, as with nginx's buffered
// access log.
type logBuffer struct {
	mu      sync.Mutex
	w       io.Writer
	buf     []byte
	every   time.Duration // the longest a line waits (logFlushEvery)
	timer   *time.Timer   // flushes a pending buffer
	pending bool          // buf holds lines and timer is set for them
	closed  bool          // Close ran: write through from now on
}

const (
	logFlushEvery = 100 * time.Millisecond
	logFlushSize  = 32 << 10
)

func newLogBuffer(w io.Writer, every time.Duration) *logBuffer {
	b := &logBuffer{w: w, every: every}
	b.timer = time.AfterFunc(time.Hour, b.Flush)
	b.timer.Stop()
	return b
}

// Write keeps p (one whole line: slog writes each record with one call)
// until the next flush.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	switch {
	case len(b.buf) >= logFlushSize:
		b.flushLocked()
	case !b.pending:
		b.pending = true
		b.timer.Reset(b.every)
	}
	return len(p), nil
}

// Flush writes what is buffered.
func (b *logBuffer) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
}

func (b *logBuffer) flushLocked() {
	if b.pending {
		b.timer.Stop()
		b.pending = false
	}
	if len(b.buf) == 0 {
		return
	}
	// A failed write to stderr has nowhere to be reported; the lines are
	// dropped rather than kept to grow without bound.
	_, _ = b.w.Write(b.buf)
	if cap(b.buf) > 4*logFlushSize {
		b.buf = nil
		return
	}
	b.buf = b.buf[:0]
}

// Close flushes and makes later writes go straight through: lines logged
// while the process exits are not left in the buffer.
func (b *logBuffer) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
	b.closed = true
}

// logHandler flushes the buffer after every record of level Warn and
// above, so a warning or an error (a store failure the process ends on,
// a recovered panic) is on stderr when it is logged.
type logHandler struct {
	slog.Handler
	b *logBuffer
}

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.b.Flush()
	}
	return err
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{Handler: h.Handler.WithAttrs(attrs), b: h.b}
}

func (h logHandler) WithGroup(name string) slog.Handler {
	return logHandler{Handler: h.Handler.WithGroup(name), b: h.b}
}
