package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

// writeGate bounds the request bytes that write requests (puts, imports,
// AIDP messages) hold in memory at once: MaxWriteBytes over the server,
// half of it per caller. A body is counted from its first byte until the
// store has written it, because the parsed documents point into it. A
// write that finds no room waits a bounded time (WriteWait) for others
// to finish, then is refused with 503 and Retry-After: memory stays
// bounded however many writers arrive, and a flood is answered, not
// queued forever. It is safe for concurrent use.
type writeGate struct {
	total, perCaller int64

	mu      sync.Mutex
	used    int64
	callers map[string]int64 // bytes held per caller (caller.rateKey)
	freed   chan struct{}    // closed, and replaced, whenever bytes are released
}

// writeChunk is how much a body of unknown length takes at a time.
const writeChunk = 1 << 20

var (
	errWriteBusy     = errors.New("server: write memory is in use by other requests")
	errWriteTooLarge = errors.New("server: the body is over one caller's share of write memory")
)

func newWriteGate(total int64) *writeGate {
	return &writeGate{total: total, perCaller: max(total/2, 1), callers: map[string]int64{}, freed: make(chan struct{})}
}

// acquire takes n bytes for the caller with key, waiting up to wait for
// room; errWriteBusy when the wait ran out.
func (g *writeGate) acquire(ctx context.Context, key string, n int64, wait time.Duration) error {
	var timeout <-chan time.Time
	for {
		g.mu.Lock()
		if g.used+n <= g.total && g.callers[key]+n <= g.perCaller {
			g.used += n
			g.callers[key] += n
			g.mu.Unlock()
			return nil
		}
		freed := g.freed
		g.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-freed:
		case <-timeout:
			return errWriteBusy
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release gives back n bytes of the caller with key.
func (g *writeGate) release(key string, n int64) {
	if n == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.used -= n
	if g.callers[key] -= n; g.callers[key] <= 0 {
		delete(g.callers, key) // only callers writing now stay in the map
	}
	close(g.freed)
	g.freed = make(chan struct{})
}

// inUse returns the bytes held now (tests and metrics).
func (g *writeGate) inUse() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.used
}

// gatedBody counts a request body against the write gate as it is read:
// all of Content-Length before the first byte when the client sent it,
// else a chunk at a time.
type gatedBody struct {
	io.ReadCloser
	ctx   context.Context
	g     *writeGate
	key   string
	wait  time.Duration
	held  int64 // bytes acquired
	read  int64
	fixed bool // held is the Content-Length, which net/http stops the body at
}

func (b *gatedBody) Read(p []byte) (int, error) {
	if b.fixed {
		return b.ReadCloser.Read(p)
	}
	if b.read == b.held {
		n := min(int64(writeChunk), b.g.perCaller-b.held)
		if n <= 0 { // at the share: fine if the body ends here
			var one [1]byte
			k, err := b.ReadCloser.Read(one[:])
			if k > 0 {
				return 0, errWriteTooLarge
			}
			return 0, err
		}
		if err := b.g.acquire(b.ctx, b.key, n, b.wait); err != nil {
			return 0, err
		}
		b.held += n
	}
	if room := b.held - b.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	return n, err
}

// readWriteBody reads the body of a write request, at most limit bytes,
// counting it against the write gate. Call release, also after a
// refusal, once nothing points into the body any more (after the store's
// write).
func (s *Server) readWriteBody(w http.ResponseWriter, r *http.Request, limit int64) (body []byte, release func(), p *problem) {
	g, key := s.writes, callerOf(r).rateKey()
	gb := &gatedBody{ReadCloser: r.Body, ctx: r.Context(), g: g, key: key, wait: s.cfg.WriteWait}
	release = func() { g.release(key, gb.held) }
	if n := r.ContentLength; n > limit {
		p := tooLarge(limit)
		return nil, release, &p
	} else if n > 0 {
		err := errWriteTooLarge
		if n <= g.perCaller {
			err = g.acquire(r.Context(), key, n, s.cfg.WriteWait)
		}
		if err != nil {
			p := s.writeRefused(w, err)
			return nil, release, &p
		}
		gb.held, gb.fixed = n, true
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, gb, limit))
	switch {
	case errors.Is(err, errWriteTooLarge), errors.Is(err, errWriteBusy):
		p := s.writeRefused(w, err)
		return nil, release, &p
	case err != nil:
		p := bodyProblem(err, limit)
		return nil, release, &p
	}
	return body, release, nil
}

// writeTooLarge refuses a body larger than one caller's share.
func (s *Server) writeTooLarge() problem {
	share := s.writes.perCaller
	p := problem{status: http.StatusRequestEntityTooLarge, code: "body_too_large", title: "Request body too large",
		detail: fmt.Sprintf("the body is over %d bytes, one caller's share of the write memory of this server "+
			"(half of --max-write-bytes %d); send it in smaller requests", share, s.cfg.MaxWriteBytes)}
	p.extra = map[string]any{"limit_bytes": canon.Number(strconv.FormatInt(share, 10))}
	return p
}

// writeRefused answers a write the gate did not admit.
func (s *Server) writeRefused(w http.ResponseWriter, err error) problem {
	switch {
	case errors.Is(err, errWriteTooLarge):
		return s.writeTooLarge()
	case errors.Is(err, errWriteBusy):
		w.Header().Set("Retry-After", "1")
		p := unavailable("busy", fmt.Sprintf("write requests hold the write memory of this server (--max-write-bytes %d, "+
			"at most half per caller) and none was freed within %s; retry after 1 s", s.cfg.MaxWriteBytes, s.cfg.WriteWait))
		p.extra = map[string]any{"limit_bytes": canon.Number(strconv.FormatInt(s.cfg.MaxWriteBytes, 10))}
		return p
	}
	return badRequest("body_unreadable", "the request body could not be read: "+err.Error())
}
