package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

// ndjsonOffers is an NDJSON body of n offers, ids prefix-0 … prefix-(n-1).
func ndjsonOffers(prefix string, n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "%s\n", shoe(fmt.Sprintf("%s-%d", prefix, i), 1))
	}
	return b.Bytes()
}

// stored reports whether tenant A can look up the offer with id.
func (ts *testServer) stored(id string) bool {
	ts.t.Helper()
	status, _, _ := ts.do("GET", pathDocuments+"?kind=offer&key="+id, "", tokenA, nil)
	return status == 200
}

// TestLimitDocumentsPerPut: an NDJSON put holds at most MaxPutDocuments
// documents; one more is refused whole, naming the flag and the fix.
func TestLimitDocumentsPerPut(t *testing.T) {
	const max = 3
	ts := startServer(t, func(c *Config) { c.MaxPutDocuments = max })
	if status, _, body := ts.sendBody("POST", pathDocuments, contentNDJSON, tokenA, ndjsonOffers("at", max), false); status != 201 {
		t.Fatalf("%d documents: %d %s", max, status, body)
	}
	status, h, body := ts.sendBody("POST", pathDocuments, contentNDJSON, tokenA, ndjsonOffers("over", max+1), false)
	ts.limitProblem(status, h, body, 413, "too_many_documents", "limit", max,
		"more than 3 documents", "(--max-put-documents 3)", "nothing was stored", "requests of at most 3 documents")
	if !ts.stored("at-0") || ts.stored("over-0") {
		t.Fatalf("stored at-0 %v (want true), over-0 %v (want false)", ts.stored("at-0"), ts.stored("over-0"))
	}
}

// TestLimitWriteBytes: write bodies in memory are bounded over the
// server (MaxWriteBytes) and per caller (half of it). A body over the
// caller's share is 413, with or without Content-Length; a write that
// finds the memory held by others waits, then is 503 with Retry-After,
// and is served once the memory is freed; every byte comes back.
func TestLimitWriteBytes(t *testing.T) {
	const total, share = 64 << 10, 32 << 10
	ts := startServer(t, func(c *Config) { c.MaxWriteBytes, c.WriteWait = total, 100*time.Millisecond })
	big := ndjsonOffers("big", share/60+50) // over 32 KiB
	if len(big) <= share {
		t.Fatalf("the big body is %d bytes", len(big))
	}
	// A body of exactly the share is accepted, with or without its length.
	for _, hide := range []bool{false, true} {
		atShare := pad(t, ndjsonOffers(fmt.Sprintf("share-%v", hide), 10), share)
		if status, _, body := ts.sendBody("POST", pathDocuments, contentNDJSON, tokenA, atShare, hide); status != 201 {
			t.Fatalf("a body of exactly the share (chunked %v): %d %s", hide, status, body)
		}
	}
	for _, hide := range []bool{false, true} {
		status, h, body := ts.sendBody("POST", pathDocuments, contentNDJSON, tokenA, big, hide)
		ts.limitProblem(status, h, body, 413, "body_too_large", "limit_bytes", share,
			"one caller's share of the write memory", "(half of --max-write-bytes 65536)", "smaller requests")
	}
	if ts.stored("big-0") {
		t.Fatal("a refused body was stored in part")
	}
	// An import is a write like a put.
	export := pad(t, []byte(`{"owner": "`+tenantA+`"}`), share+1)
	for _, hide := range []bool{false, true} {
		status, h, body := ts.sendBody("POST", pathImport, contentJSON, tokenA, export, hide)
		ts.limitProblem(status, h, body, 413, "body_too_large", "limit_bytes", share, "(half of --max-write-bytes 65536)")
	}
	// Two other callers hold all the write memory: a put waits, then is
	// refused; it is served once the memory is free.
	g := ts.srv.writes
	for _, key := range []string{"ip 192.0.2.1", "ip 192.0.2.2"} {
		if err := g.acquire(context.Background(), key, share, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	small := ndjsonOffers("small", 2)
	status, h, body := ts.sendBody("POST", pathDocuments, contentNDJSON, tokenA, small, false)
	ts.limitProblem(status, h, body, 503, "busy", "limit_bytes", total, "(--max-write-bytes 65536, at most half per caller)")
	if h.Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q, want 1", h.Get("Retry-After"))
	}
	g.release("ip 192.0.2.1", share)
	g.release("ip 192.0.2.2", share)
	for _, hide := range []bool{false, true} {
		if status, _, body := ts.sendBody("POST", pathDocuments, contentNDJSON, tokenA, small, hide); status/100 != 2 {
			t.Fatalf("put once the memory is free (chunked %v): %d %s", hide, status, body)
		}
	}
	if n := g.inUse(); n != 0 {
		t.Fatalf("%d bytes still counted after every write ended", n)
	}
}

// TestGatedBodyAtShare: a body of exactly a caller's share is read
// whole, whether its length was known (all of it acquired at once) or
// not (a chunk at a time), even when its reader says EOF only after the
// last byte; one byte more is errWriteTooLarge. Every byte is given back.
func TestGatedBodyAtShare(t *testing.T) {
	const share = 3 * writeChunk / 2
	g := newWriteGate(2 * share)
	read := func(size int, known bool) error {
		b := &gatedBody{ReadCloser: io.NopCloser(bytes.NewReader(make([]byte, size))), ctx: context.Background(),
			g: g, key: "k", wait: time.Millisecond}
		defer func() { g.release("k", b.held) }()
		if known {
			if err := g.acquire(context.Background(), "k", int64(size), time.Millisecond); err != nil {
				return err
			}
			b.held, b.fixed = int64(size), true
		}
		got, err := io.ReadAll(b)
		if err == nil && len(got) != size {
			t.Errorf("read %d bytes of %d", len(got), size)
		}
		return err
	}
	for _, known := range []bool{true, false} {
		if err := read(share, known); err != nil {
			t.Errorf("a body of exactly the share (length known %v): %v", known, err)
		}
	}
	if err := read(share+1, false); !errors.Is(err, errWriteTooLarge) {
		t.Errorf("one byte over the share: %v", err)
	}
	if n := g.inUse(); n != 0 {
		t.Errorf("%d bytes still counted", n)
	}
}
