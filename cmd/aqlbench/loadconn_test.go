package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// echoHandler answers a POST with its body reversed behind a prefix, so a
// test sees that each answer belongs to its request; chunked when the
// request asks for it by path.
func echoHandler(t *testing.T) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/oap+json" {
			t.Errorf("request %s %s %q: %v", r.Method, r.URL.Path, r.Header.Get("Content-Type"), err)
		}
		out := fmt.Appendf(nil, "%s|%s|%s", r.URL.Path, r.Header.Get("Authorization"), body)
		if strings.HasSuffix(r.URL.Path, "/chunked") {
			for len(out) > 0 { // several writes with flushes: chunked framing
				n := min(len(out), 7)
				_, _ = w.Write(out[:n])
				w.(http.Flusher).Flush()
				out = out[n:]
			}
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(out)))
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write(out)
	}
}

func TestLoadConnExchanges(t *testing.T) {
	for _, tc := range []struct {
		name      string
		path      string
		keepAlive bool
		status    int
	}{
		{"content-length", "/oap/intent", true, http.StatusTeapot},
		{"chunked", "/x/chunked", true, http.StatusOK},
		{"connection close", "/oap/intent", false, http.StatusTeapot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewUnstartedServer(echoHandler(t))
			var conns atomic.Int64
			ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			ts.Config.SetKeepAlivesEnabled(tc.keepAlive)
			ts.Start()
			defer ts.Close()
			u, _ := url.Parse(ts.URL)
			c := newLoadConn(hostPort(u), u.Host, tc.path, "tok")
			defer c.close()
			var resp bytes.Buffer
			for i := range 20 {
				resp.Reset()
				body := fmt.Appendf(nil, `{"n":%d}`, i)
				status, err := c.post(context.Background(), body, &resp)
				if err != nil || status != tc.status {
					t.Fatalf("request %d: status %d, %v", i, status, err)
				}
				if want := fmt.Sprintf("%s|Bearer tok|%s", tc.path, body); resp.String() != want {
					t.Fatalf("request %d: answer %q, want %q", i, resp.String(), want)
				}
			}
			want := int64(1)
			if !tc.keepAlive {
				want = 20 // the server closed each: the connection dialled again
			}
			if n := conns.Load(); n != want {
				t.Fatalf("%d connections for 20 requests, want %d", n, want)
			}
		})
	}
}

// postTo posts once over a connection whose server reads the request's
// head, answers reply and closes; within 10 s. The connection is returned
// as post left it.
func postTo(reply []byte) (c *loadConn, status int, body string, err error) {
	client, srv := net.Pipe()
	go func() {
		defer srv.Close()
		r := bufio.NewReader(srv)
		for { // the request's head; the tests post an empty body
			line, err := r.ReadString('\n')
			if err != nil || line == "\r\n" {
				break
			}
		}
		_, _ = srv.Write(reply)
	}()
	c = newLoadConn("pipe", "pipe", "/oap/intent", "")
	c.conn, c.r = client, bufio.NewReaderSize(client, 16<<10)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var resp bytes.Buffer
	status, err = c.post(ctx, nil, &resp)
	return c, status, resp.String(), err
}

func TestLoadConnAnswersWithoutBody(t *testing.T) {
	for _, tc := range []struct {
		reply  string
		status int
	}{
		{"HTTP/1.1 204 No Content\r\n\r\n", 204},
		{"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n", 304},
		{"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 200},
	} {
		c, status, body, err := postTo([]byte(tc.reply))
		c.close()
		if err != nil || status != tc.status || (status == 200) != (body == "ok") {
			t.Fatalf("answer %q: status %d, body %q, %v; want %d", tc.reply, status, body, err, tc.status)
		}
	}
}

func TestLoadConnMalformedAnswers(t *testing.T) {
	for _, reply := range []string{
		"",
		"garbage\r\n\r\n",
		"HTTP/1.1 2x0 OK\r\n\r\n",
		"HTTP/1.1 099 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nNo-Colon\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\n\r\nno framing",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n",
		"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 20<<10) + "\r\n\r\n",
	} {
		c, status, _, err := postTo([]byte(reply))
		if err == nil {
			t.Fatalf("answer %.40q: status %d and no error", reply, status)
		}
		if c.conn != nil {
			t.Fatalf("answer %.40q: the connection stays open after %v", reply, err)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("answer %.40q: hung until the deadline", reply)
		}
	}
}

func TestLoadConnDeadline(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer ts.Close()
	defer close(release)
	u, _ := url.Parse(ts.URL)
	c := newLoadConn(hostPort(u), u.Host, "/", "")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var resp bytes.Buffer
	if _, err := c.post(ctx, nil, &resp); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a request beyond the context's deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	if _, err := newLoadConn("127.0.0.1:1", "x", "/", "").post(context.Background(), nil, &resp); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("no server: %v, want ECONNREFUSED", err)
	}
}

// BenchmarkLoadClient compares the load generator's connection with
// net/http's client against the same small handler, side by side: the
// CPU a generator spends per request is CPU the server under test does
// not get on a shared machine.
func BenchmarkLoadClient(b *testing.B) {
	answer := bytes.Repeat([]byte("x"), 960)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	defer ts.Close()
	u, _ := url.Parse(ts.URL)
	body := lookupBodies(1000)(nil, rand.New(rand.NewPCG(1, 1)))
	b.Run("loadConn", func(b *testing.B) {
		c := newLoadConn(hostPort(u), u.Host, "/oap/intent", "")
		defer c.close()
		var resp bytes.Buffer
		for b.Loop() {
			resp.Reset()
			if st, err := c.post(context.Background(), body, &resp); err != nil || st != http.StatusOK {
				b.Fatal(st, err)
			}
		}
	})
	b.Run("net-http", func(b *testing.B) {
		h := httpPost{hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}, endpoint: ts.URL + "/oap/intent"}
		var resp bytes.Buffer
		for b.Loop() {
			resp.Reset()
			if st, err := h.post(context.Background(), body, &resp); err != nil || st != http.StatusOK {
				b.Fatal(st, err)
			}
		}
	})
}

// FuzzLoadConnAnswer feeds the load generator's connection arbitrary
// answers: it must return a status or an error, never panic or hang, and
// close the connection after any error.
func FuzzLoadConnAnswer(f *testing.F) {
	for _, seed := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-T: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.0 200\r\n\r\n",
		"HTTP/1.1 000 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 -12 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		c, status, _, err := postTo(reply)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("answer %q: hung until the deadline", reply)
		}
		if err != nil && c.conn != nil {
			t.Fatalf("answer %q: the connection stays open after %v", reply, err)
		}
		if err == nil && (status < 100 || status > 999) {
			t.Fatalf("answer %q: status %d without an error", reply, status)
		}
		c.close()
	})
}
