package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// loadConn is one keep-alive HTTP/1.1 connection of a load test worker,
// written for the load generator's own cost: the request is built in a
// reused buffer and the answer is read with one bufio.Reader, with no
// header maps, no request objects and no goroutine per connection, as
// wrk and h2load do. On loopback the generator shares the machine's
// cores with the server it measures, so every microsecond it spends is
// one the server does not get: net/http's client costs about 60 µs of CPU
// per request here, this about a tenth of that (BenchmarkLoadClient).
//
// It speaks only what it needs: POST with a Content-Length body, and
// answers framed by Content-Length or chunked, on a plain TCP connection
// (an https URL goes through net/http). Any failure closes the
// connection; the next request dials again.
type loadConn struct {
	addr   string // host:port
	host   string // the Host header
	path   string
	token  string
	conn   net.Conn
	r      *bufio.Reader
	req    []byte
	closed bool // the server said Connection: close
}

func newLoadConn(addr, host, path, token string) *loadConn {
	return &loadConn{addr: addr, host: host, path: path, token: token}
}

// errLoadResponse is an answer the connection cannot read as HTTP/1.1.
var errLoadResponse = errors.New("malformed HTTP response")

// post sends body and reads the answer's body into resp. It returns the
// HTTP status, or an error (transport or framing) after which the
// connection is closed.
func (c *loadConn) post(ctx context.Context, body []byte, resp *bytes.Buffer) (int, error) {
	if c.conn == nil {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", c.addr)
		if err != nil {
			return 0, err
		}
		c.conn, c.closed = conn, false
		if c.r == nil {
			c.r = bufio.NewReaderSize(conn, 16<<10)
		} else {
			c.r.Reset(conn)
		}
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.conn.SetDeadline(dl)
	} else {
		_ = c.conn.SetDeadline(time.Time{})
	}
	status, err := c.exchange(body, resp)
	if err != nil || c.closed {
		c.close()
	}
	return status, err
}

func (c *loadConn) close() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}

// exchange writes the request and reads the answer.
func (c *loadConn) exchange(body []byte, resp *bytes.Buffer) (int, error) {
	c.req = append(c.req[:0], "POST "...)
	c.req = append(c.req, c.path...)
	c.req = append(c.req, " HTTP/1.1\r\nHost: "...)
	c.req = append(c.req, c.host...)
	c.req = append(c.req, "\r\nContent-Type: application/oap+json\r\nContent-Length: "...)
	c.req = strconv.AppendInt(c.req, int64(len(body)), 10)
	if c.token != "" {
		c.req = append(c.req, "\r\nAuthorization: Bearer "...)
		c.req = append(c.req, c.token...)
	}
	c.req = append(c.req, "\r\n\r\n"...)
	c.req = append(c.req, body...)
	if _, err := c.conn.Write(c.req); err != nil {
		return 0, err
	}
	status, length, chunked, err := c.readHead()
	for err == nil && status < 200 { // an interim answer (103 Early Hints): the final one follows
		status, length, chunked, err = c.readHead()
	}
	if err != nil {
		return 0, err
	}
	switch {
	case status == 204 || status == 304: // no body (RFC 9112 §6.3)
		return status, nil
	case chunked:
		return status, c.readChunked(resp)
	case length < 0:
		return 0, fmt.Errorf("%w: neither Content-Length nor chunked", errLoadResponse)
	}
	_, err = io.CopyN(resp, c.r, length)
	return status, err
}

// readHead reads the status line and the headers: the status, the body's
// Content-Length (-1 when absent) and whether it is chunked.
func (c *loadConn) readHead() (status int, length int64, chunked bool, err error) {
	line, err := c.line()
	if err != nil {
		return 0, 0, false, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, 0, false, fmt.Errorf("%w: status line %q", errLoadResponse, line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil || status < 100 || (len(line) > 12 && line[12] != ' ') {
		return 0, 0, false, fmt.Errorf("%w: status line %q", errLoadResponse, line)
	}
	length = -1
	for {
		line, err := c.line()
		if err != nil {
			return 0, 0, false, err
		}
		if len(line) == 0 {
			return status, length, chunked, nil
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, 0, false, fmt.Errorf("%w: header line %q", errLoadResponse, line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			length, err = strconv.ParseInt(string(value), 10, 64)
			if err != nil || length < 0 {
				return 0, 0, false, fmt.Errorf("%w: Content-Length %q", errLoadResponse, value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			c.closed = bytes.EqualFold(value, []byte("close"))
		}
	}
}

// readChunked reads a chunked body (RFC 9112 §7.1) into resp.
func (c *loadConn) readChunked(resp *bytes.Buffer) error {
	for {
		line, err := c.line()
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(line, []byte(";"))
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%w: chunk size %q", errLoadResponse, line)
		}
		if n == 0 {
			for { // trailers, up to the empty line
				if line, err = c.line(); err != nil || len(line) == 0 {
					return err
				}
			}
		}
		if _, err := io.CopyN(resp, c.r, n); err != nil {
			return err
		}
		if line, err = c.line(); err != nil {
			return err
		}
		if len(line) != 0 {
			return fmt.Errorf("%w: no CRLF after a chunk", errLoadResponse)
		}
	}
}

// line reads one CRLF-terminated line, without its CRLF. The slice is
// valid until the next read.
func (c *loadConn) line() ([]byte, error) {
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: a header line longer than %d bytes", errLoadResponse, c.r.Size())
		}
		return nil, err
	}
	return bytes.TrimSuffix(line[:len(line)-1], []byte("\r")), nil
}
