package server

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"time"
)

// sseWriter writes one text/event-stream response. Every write first
// moves the connection's write deadline StreamWriteTimeout ahead, so the
// server's WriteTimeout never cuts a healthy stream while a client that
// stops reading is still dropped. It is used by one goroutine.
type sseWriter struct {
	s   *Server
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf bytes.Buffer

	scratch []byte // the last event's signed bytes, reused
}

// startSSE sends the stream's headers, or answers the request itself
// when the stream cannot start (ok false): 503 with Retry-After when the
// server holds MaxStreams streams already. The read deadline is lifted:
// the body is read, and a deadline firing later would cancel the
// request's context and with it the stream. A closed connection still
// ends it. Call done when the stream ends.
func (s *Server) startSSE(w http.ResponseWriter, r *http.Request) (e *sseWriter, done func(), ok bool) {
	if n := s.streams.Add(1); n > int64(s.cfg.MaxStreams) {
		s.streams.Add(-1)
		w.Header().Set("Retry-After", "5")
		s.writeProblem(w, r, unavailable("too_many_streams",
			"the server holds "+strconv.Itoa(s.cfg.MaxStreams)+" streams already; retry later"))
		return nil, nil, false
	}
	s.metrics.streams.Inc()
	done = func() { s.streams.Add(-1); s.metrics.streams.Dec() }
	e = &sseWriter{s: s, w: w, rc: http.NewResponseController(w)}
	_ = e.rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", contentSSE)
	h.Set("X-Accel-Buffering", "no")
	h.Del("Content-Length")
	w.WriteHeader(http.StatusOK)
	e.buf.WriteString("retry: 2000\n\n")
	if err := e.flush(); err != nil {
		done()
		s.cfg.Logger.Warn("stream start", "err", err)
		return nil, nil, false
	}
	return e, done, true
}

// event signs doc and writes it as one event; id is "" for events that
// must not move the client's Last-Event-ID.
func (e *sseWriter) event(name, id string, doc map[string]any) error {
	signed, _, err := e.s.cfg.Signer.AppendSigned(e.scratch[:0], doc)
	if err != nil {
		return err
	}
	e.scratch = signed
	if id != "" {
		e.buf.WriteString("id: " + id + "\n")
	}
	e.buf.WriteString("event: " + name + "\ndata: ")
	e.buf.Write(signed) // RFC 8785 has no raw newline
	e.buf.WriteString("\n\n")
	e.s.metrics.events.WithLabelValues(name).Inc()
	return e.flush()
}

// heartbeat writes a comment and moves the client's Last-Event-ID to
// lastID (an id-only message dispatches no event), so a reconnect after a
// long quiet stretch does not re-scan it.
func (e *sseWriter) heartbeat(lastID string) error {
	e.buf.WriteString(": heartbeat\n")
	e.buf.WriteString("id: " + lastID + "\n")
	e.buf.WriteString("\n")
	return e.flush()
}

func (e *sseWriter) flush() error {
	_ = e.rc.SetWriteDeadline(time.Now().Add(e.s.cfg.StreamWriteTimeout))
	_, err := e.w.Write(e.buf.Bytes())
	e.buf.Reset()
	if err == nil {
		err = e.rc.Flush()
	}
	return err
}

// streamContext returns ctx ended also by the server's shutdown, and
// reports through closing whether that was the cause.
func (s *Server) streamContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-s.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// shuttingDown reports whether the server is shutting down.
func (s *Server) shuttingDown() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}
