package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/server/client"
	"github.com/aqlstore/aqlstore/store"
)

// These tests put the server under bounded load on loopback: slow-header
// clients, oversized bodies, a flood from one caller, hundreds of
// subscribers, and a shutdown while writers write. Waits are bounded by
// generous timeouts; nothing asserts how long anything took.

// listenAddr is the host:port of a test server's URL.
func listenAddr(ts *testServer) string { return strings.TrimPrefix(ts.url, "http://") }

// TestSlowHeaderClientsAreCutOff: a hundred connections send their
// headers a byte at a time and never finish them. While they hold their
// connections, other callers are served; each slow client is then cut off
// at ReadHeaderTimeout; no handler sees its request.
func TestSlowHeaderClientsAreCutOff(t *testing.T) {
	const slow = 100
	ts := startServer(t, func(c *Config) { c.ReadHeaderTimeout = 2 * time.Second })
	header := "POST /storage/documents HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer " + tokenB +
		"\r\nContent-Type: application/json\r\nX-Padding: " + strings.Repeat("p", 1<<20)
	conns := make([]net.Conn, slow)
	for i := range conns {
		c, err := net.Dial("tcp", listenAddr(ts))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	stop := make(chan struct{})
	var dripping sync.WaitGroup
	for _, c := range conns {
		dripping.Add(1)
		go func() {
			defer dripping.Done()
			for i := 0; i < len(header); i++ {
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
				if _, err := c.Write([]byte{header[i]}); err != nil {
					return // cut off
				}
			}
		}()
	}
	defer func() { close(stop); dripping.Wait() }()

	ctx := context.Background()
	for i := range 10 {
		if _, err := ts.client(tokenA).Put(ctx, []byte(fmt.Sprintf(`{"node_id": "served-%d"}`, i)), client.PutOptions{}); err != nil {
			t.Fatalf("put %d while slow clients hold their connections: %v", i, err)
		}
		if status, _, body := ts.do("GET", "/healthz", "", "", nil); status != 200 {
			t.Fatalf("healthz while slow clients hold their connections: %d %s", status, body)
		}
	}
	silent := 0
	for i, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(time.Minute)) // a bound on a hang, not a timing assertion
		got, err := io.ReadAll(c)
		if isTimeout(err) {
			t.Fatalf("slow client %d was not cut off within a minute", i)
		}
		// No handler ever sees the request: net/http closes the
		// connection, in some runs after writing its own plain-text 400
		// (observed, depending on where in the headers the deadline
		// falls; never one of the server's problem documents).
		switch {
		case len(got) == 0:
			silent++
		case !bytes.HasPrefix(got, []byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain")):
			t.Fatalf("slow client %d was answered %q; want the connection closed", i, got)
		}
	}
	t.Logf("%d slow clients cut off silently, %d with net/http's plain 400", silent, slow-silent)
	if n := routeRequests(t, ts, "put"); n != 10 {
		t.Fatalf("the put route counted %v requests, want the 10 normal puts: a slow client reached a handler", n)
	}
	if status, _, _ := ts.do("GET", "/healthz", "", "", nil); status != 200 {
		t.Fatalf("healthz after the slow clients: %d", status)
	}
}

// routeRequests is how many requests the server's metrics count for route.
func routeRequests(t *testing.T, ts *testServer, route string) float64 {
	t.Helper()
	families, err := ts.srv.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, f := range families {
		if f.GetName() != "aqlstore_http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "route" && l.GetValue() == route {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return n
}

// rawRequest writes head (request line and headers, without the blank
// line ending them) on a new connection, then body from a goroutine, and
// returns the first answer. Writing stops at the first write error: the
// server may answer and close before the body is through.
func rawRequest(t *testing.T, ts *testServer, head string, body func(w io.Writer) error) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", listenAddr(ts))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
		t.Fatal(err)
	}
	if body != nil {
		go func() { _ = body(conn) }() // its error is the server closing: the answer tells
	}
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute)) // a bound on a hang
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// checkRawProblem reads resp as a signed problem document of status and code.
func (ts *testServer) checkRawProblem(resp *http.Response, status int, code string) map[string]any {
	ts.t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		ts.t.Fatal(err)
	}
	return ts.checkProblem(resp.StatusCode, resp.Header, body, status, code)
}

// TestOversizedBodies: a body over the limit is refused with a signed 413
// problem naming the limit, whether its Content-Length says so, it is sent
// slowly in chunks without one, or its Content-Length claims more than it
// sends; a Content-Length that claims less than is sent bounds what is
// read. Nothing is stored, and the server serves on.
func TestOversizedBodies(t *testing.T) {
	const limit = 64 << 10
	ts := startServer(t, func(c *Config) { c.MaxBodyBytes, c.MaxImportBytes = limit, 2*limit })
	head := func(path, extra string) string {
		return "POST " + path + " HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer " + tokenB +
			"\r\nContent-Type: application/json\r\n" + extra
	}
	big := []byte(`{"node_id": "big", "text": "` + strings.Repeat("b", 3*limit) + `"}`)
	headBefore := ts.st.Head()
	write := func(b []byte) func(io.Writer) error {
		return func(w io.Writer) error { _, err := w.Write(b); return err }
	}
	t.Run("Content-Length over the limit", func(t *testing.T) {
		resp := rawRequest(t, ts, head(pathDocuments, "Content-Length: "+strconv.Itoa(len(big))+"\r\n"), write(big))
		doc := ts.checkRawProblem(resp, 413, "body_too_large")
		if fmt.Sprint(doc["limit_bytes"]) != strconv.Itoa(limit) || !strings.Contains(fmt.Sprint(doc["detail"]), strconv.Itoa(limit)) {
			t.Fatalf("the 413 does not name the limit %d: %v", limit, doc)
		}
	})
	t.Run("chunked, sent slowly", func(t *testing.T) {
		resp := rawRequest(t, ts, head(pathDocuments, "Transfer-Encoding: chunked\r\n"), func(w io.Writer) error {
			for i := 0; i < len(big); i += 1 << 10 {
				chunk := big[i:min(i+1<<10, len(big))]
				if _, err := fmt.Fprintf(w, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
					return err
				}
				time.Sleep(time.Millisecond)
			}
			_, err := io.WriteString(w, "0\r\n\r\n")
			return err
		})
		ts.checkRawProblem(resp, 413, "body_too_large")
	})
	t.Run("Content-Length claims more than is sent", func(t *testing.T) {
		// One GiB announced, nothing sent: the answer must not wait for it.
		resp := rawRequest(t, ts, head(pathDocuments, "Content-Length: 1073741824\r\n"), nil)
		ts.checkRawProblem(resp, 413, "body_too_large")
	})
	t.Run("import over its own limit", func(t *testing.T) {
		export := []byte(`{"export_version": "1", "padding": "` + strings.Repeat("x", 3*limit) + `"}`)
		resp := rawRequest(t, ts, head(pathImport, "Content-Length: "+strconv.Itoa(len(export))+"\r\n"), write(export))
		doc := ts.checkRawProblem(resp, 413, "body_too_large")
		if fmt.Sprint(doc["limit_bytes"]) != strconv.Itoa(2*limit) {
			t.Fatalf("the import's 413 names %v, want its limit %d", doc["limit_bytes"], 2*limit)
		}
	})
	t.Run("Content-Length claims less than is sent", func(t *testing.T) {
		// The body is the 40 bytes announced, a cut document: refused as
		// such. What follows is not read as part of it.
		resp := rawRequest(t, ts, head(pathDocuments, "Content-Length: 40\r\n"), write(big))
		ts.checkRawProblem(resp, 400, "invalid_document")
	})
	if h := ts.st.Head(); h != headBefore {
		t.Fatalf("the refused bodies moved the chain from %d to %d", headBefore, h)
	}
	if status, _, _ := ts.do("GET", "/healthz", "", "", nil); status != 200 {
		t.Fatalf("healthz after the oversized bodies: %d", status)
	}
}

// TestFloodFromOneCaller: tenant A floods the server; A is answered 429
// with Retry-After, while tenant B, making a few requests during the
// flood, is served every time. A's successes never exceed its bucket plus
// what refilled while the flood ran.
func TestFloodFromOneCaller(t *testing.T) {
	const rate, burst = 1.0, 20
	ts := startServer(t, func(c *Config) { c.RateLimit, c.RateBurst = rate, burst })
	ctx := context.Background()
	start := time.Now()
	var ok200, limited atomic.Int64
	firstLimited := make(chan struct{})
	var once sync.Once
	stop := make(chan struct{})
	var flood sync.WaitGroup
	var floodErr atomic.Value
	for range 8 {
		flood.Add(1)
		go func() {
			defer flood.Done()
			for n := 0; n < 500; n++ {
				select {
				case <-stop:
					return
				default:
				}
				status, header, body := rawGet(ts.url+pathDID, tokenA)
				switch {
				case status == 200:
					ok200.Add(1)
				case status == 429 && header.Get("Retry-After") != "" && bytes.Contains(body, []byte(`"rate_limited"`)):
					limited.Add(1)
					once.Do(func() { close(firstLimited) })
				default:
					floodErr.Store(fmt.Sprintf("flood answer %d %q: %s", status, header.Get("Retry-After"), body))
					return
				}
			}
		}()
	}
	select {
	case <-firstLimited:
	case <-time.After(time.Minute):
		t.Fatal("the flood was never limited")
	}
	for i := range 5 { // B, during the flood
		if status, _, body := rawGet(ts.url+pathDID, tokenB); status != 200 {
			t.Fatalf("tenant B's request %d during A's flood: %d %s", i, status, body)
		}
		if _, err := ts.client(tokenB).Put(ctx, []byte(fmt.Sprintf(`{"node_id": "b-during-flood-%d"}`, i)), client.PutOptions{}); err != nil {
			t.Fatalf("tenant B's put %d during A's flood: %v", i, err)
		}
	}
	close(stop)
	flood.Wait()
	if e := floodErr.Load(); e != nil {
		t.Fatal(e)
	}
	allowed := burst + int64(rate*time.Since(start).Seconds()) + 1
	if ok200.Load() > allowed {
		t.Fatalf("A got %d answers through a bucket of %d at %g/s (%d allowed in the time the flood ran)", ok200.Load(), burst, rate, allowed)
	}
	t.Logf("flood: %d served, %d refused with 429; B served throughout", ok200.Load(), limited.Load())
}

// rawGet sends GET url with a bearer token and returns the answer; a
// transport error is status 0.
func rawGet(url, token string) (int, http.Header, []byte) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, []byte(err.Error())
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// TestManySubscribers: three hundred subscription streams are open at
// once; each receives exactly the matching public puts, in order, signed,
// and none receives another tenant's private document that matches too.
func TestManySubscribers(t *testing.T) {
	const subscribers = 300
	ts := startServer(t, func(c *Config) { c.MaxSubscriptions, c.MaxStreams = subscribers, subscribers })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // ends every stream read on a hang
	defer cancel()
	streams := make([]*client.Stream, subscribers)
	errs := make(chan error, subscribers)
	var opening sync.WaitGroup
	for i := range streams {
		opening.Add(1)
		go func() {
			defer opening.Done()
			s, err := ts.client("").Subscribe(ctx, shoeSubscription(100), "")
			if err != nil {
				errs <- fmt.Errorf("subscriber %d: %w", i, err)
				return
			}
			streams[i] = s
			if ev, err := s.Next(); err != nil || ev.Name != "subscribed" {
				errs <- fmt.Errorf("subscriber %d: first event %v, %v", i, ev, err)
			}
		}()
	}
	opening.Wait()
	for _, s := range streams {
		if s != nil {
			defer s.Close()
		}
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	if _, err := ts.client(tokenB).Put(ctx, []byte(shoe("b-private", 9)), client.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"s-1", "s-2", "s-3"}
	for i, id := range want {
		ts.putPublic(`{"offer_id": "noise-` + strconv.Itoa(i) + `", "category": "socks"}`)
		ts.putPublic(shoe(id, i+1))
	}
	pub := ts.signer.PublicKey()
	var reading sync.WaitGroup
	for i, s := range streams {
		reading.Add(1)
		go func() {
			defer reading.Done()
			for _, id := range want {
				ev, err := s.Next()
				if err != nil {
					errs <- fmt.Errorf("subscriber %d waiting for %s: %w", i, id, err)
					return
				}
				if err := client.Verify(ev.Data, pub); err != nil {
					errs <- fmt.Errorf("subscriber %d: event %s: %w", i, ev.Name, err)
					return
				}
				if ev.Name != "candidate" || !bytes.Contains(ev.Data, []byte(`"candidate_id":"`+id+`"`)) {
					errs <- fmt.Errorf("subscriber %d: got %s %s, want candidate %s", i, ev.Name, ev.Data, id)
					return
				}
			}
		}()
	}
	reading.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

// putOutcome is what one write of the shutdown test was told.
type putOutcome struct {
	key    string
	status int    // 0: no answer (the connection failed)
	id     string // the content id of a 2xx answer
	err    error
	late   bool // answered after the shutdown began
}

// TestShutdownUnderLoadKeepsAcknowledgedWrites: writers put documents
// concurrently; once a hundred are acknowledged the server shuts down
// while they go on. Every write that got a 2xx is in the store when it is
// opened again; a write answered with an error status is not, nor is one
// that got no answer (the server never read it: what it reads, it
// finishes and answers). Serve returns cleanly, and the reopened store
// verifies and its indexes equal its documents.
func TestShutdownUnderLoadKeepsAcknowledgedWrites(t *testing.T) {
	const writers = 8
	dir := t.TempDir()
	st, ix, err := index.Open(dir, nil) // synced: a 2xx is an acknowledgement
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ts := serveStore(t, st, ix, func(c *Config) { c.ShutdownTimeout = time.Minute })
	outcomes := make(chan putOutcome, 1<<16)
	var stopping atomic.Bool
	acked := make(chan struct{}, 1<<16)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ts.client(tokenB)
			for i := 0; i < 5000; i++ {
				o := putOutcome{key: fmt.Sprintf("w%d-%d", w, i)}
				refs, err := c.Put(context.Background(), []byte(`{"node_id": "`+o.key+`", "writer": `+strconv.Itoa(w)+`}`), client.PutOptions{})
				o.late = stopping.Load()
				var ce *client.Error
				switch {
				case err == nil && len(refs) == 1:
					o.status, o.id = 201, refs[0].ID
					acked <- struct{}{}
				case errors.As(err, &ce):
					o.status, o.err = ce.Status, err
				default:
					o.err = err
				}
				outcomes <- o
				if o.status == 0 {
					return // the server is gone
				}
			}
		}()
	}
	for range 100 {
		select {
		case <-acked:
		case <-time.After(time.Minute):
			t.Fatal("a hundred writes were not acknowledged within a minute")
		}
	}
	stopping.Store(true)
	if err := ts.stop(); err != nil {
		t.Fatalf("Serve after a shutdown under load: %v", err)
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(time.Minute):
		t.Fatal("writers still waiting for answers a minute after the shutdown")
	}
	close(outcomes)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2, _, err := index.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	ctx := store.WithPrincipal(context.Background(), tenantB)
	var nAcked, nLate, nRefused, nUnsent, nLost int
	for o := range outcomes {
		doc, err := st2.Lookup(ctx, canon.KindKnowledge, o.key)
		stored := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("lookup %s: %v", o.key, err)
		}
		switch {
		case o.status/100 == 2:
			nAcked++
			if o.late {
				nLate++
			}
			if !stored || doc.ID.String() != o.id {
				t.Errorf("write %s was acknowledged (%s) but is not in the reopened store (%v)", o.key, o.id, err)
			}
		case o.status != 0:
			nRefused++
			if stored {
				t.Errorf("write %s was refused (%v) but is in the store", o.key, o.err)
			}
		case isDialError(o.err):
			nUnsent++ // never reached the server
		default:
			// Sent, no answer: a request written on a keep-alive
			// connection just as the shutdown closed it idle, which the
			// server never read. A request the server did read is in
			// flight, and the shutdown lets it finish and answer: a
			// stored write without an answer means it cut one short.
			nLost++
			t.Logf("write %s got no answer: %v", o.key, o.err)
			if stored {
				t.Errorf("write %s is stored but got no answer: the shutdown cut an in-flight request", o.key)
			}
		}
	}
	rep, err := st2.Verify(context.Background())
	if err != nil || !rep.OK() {
		t.Fatalf("verify after the shutdown: %v %v", err, rep.Problems)
	}
	crep, err := index.Check(context.Background(), st2)
	if err != nil || !crep.OK() {
		t.Fatalf("index check after the shutdown: %v %v", err, crep.Problems)
	}
	t.Logf("%d writes acknowledged and found (%d of them answered during the shutdown), %d refused with a status, "+
		"%d not sent (server gone), %d sent without an answer", nAcked, nLate, nRefused, nUnsent, nLost)
}

// isDialError reports whether err is a failure to connect.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// TestSlowBodyIsCutOff: a body trickled in slower than ReadTimeout allows
// (a slowloris on the body rather than the headers) ends with a signed
// 400 saying the body could not be read; nothing is stored.
func TestSlowBodyIsCutOff(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.ReadTimeout = time.Second })
	body := []byte(`{"node_id": "trickled", "text": "` + strings.Repeat("t", 900) + `"}`)
	head := "POST " + pathDocuments + " HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer " + tokenB +
		"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	resp := rawRequest(t, ts, head, func(w io.Writer) error {
		for i := range body {
			if _, err := w.Write(body[i : i+1]); err != nil {
				return err
			}
			time.Sleep(20 * time.Millisecond)
		}
		return nil
	})
	ts.checkRawProblem(resp, 400, "body_unreadable")
	if h := ts.st.Head(); h != 0 {
		t.Fatalf("the cut-off body stored something: head %d", h)
	}
}
