package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
)

// A replica bootstrapped from another's export answers as the others do,
// and applies only the stream after the export's sequence.
func TestBootstrapFromExport(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 2)
	a := c.start("a", 0, 1)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	stats := map[string]int{}
	s, ix, err := index.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writeBoth(t, r, []*Node{a}, s, 0, stats)
	c.waitAll(ctx)

	exported := map[int]uint64{}
	c.boot = map[int]string{}
	for shard := range 2 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("shard-%d.ndjson", shard))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if exported[shard], err = a.ExportShard(ctx, shard, f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		c.boot[shard] = path
	}
	writeBoth(t, r, []*Node{a}, s, 60, stats) // after the export: b applies these from the stream
	b := c.start("b", 0, 1)
	c.boot = nil
	c.waitAll(ctx)

	for shard, from := range exported {
		last, _ := a.Applied(shard)
		if from == 0 || from >= last {
			t.Fatalf("shard %d: exported at %d, stream at %d: the test wrote nothing before or after the export", shard, from, last)
		}
		if got := b.replicas[shard].handled.Load(); got != last-from {
			t.Errorf("shard %d: b applied %d entries, want the %d after the export's sequence %d", shard, got, last-from, from)
		}
	}
	c.stop("a") // only b answers now
	for range diffIntents {
		compareQuery(t, r, b, s, ix, []byte(genIntent(r)), pick(r, append(diffOwners, bob)), stats)
	}
	t.Logf("compared %v", stats)
	if stats["candidates"] == 0 || stats["grants"] == 0 || stats["deletes"] == 0 {
		t.Fatalf("the random cases were vacuous: %v", stats)
	}
	// Restarted, b resumes from its consumer: the export is not read again.
	c.stop("b")
	c.boot = map[int]string{0: "/nonexistent/export"}
	b = c.start("b", 0, 1)
	c.boot = nil
	if seq, _ := b.Applied(0); seq < exported[0] {
		t.Fatalf("restarted b applied %d of shard 0, want at least %d", seq, exported[0])
	}
	// And without the export named: its consumer, which starts after the
	// export, is kept as it is.
	c.stop("b")
	b = c.start("b", 0, 1)
	if seq, _ := b.Applied(0); seq < exported[0] {
		t.Fatalf("b restarted without --bootstrap applied %d of shard 0, want at least %d", seq, exported[0])
	}
}

// An export of another shard, or a malformed line, is refused naming the
// line, and the node does not start.
func TestBootstrapRefusesBadExport(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 2)
	a := c.start("a", 0, 1)
	if _, err := a.Put(ctx, store.Document{Body: offer("x", "1")}); err != nil {
		t.Fatal(err)
	}
	c.waitAll(ctx)
	var sb strings.Builder
	if _, err := a.ExportShard(ctx, 1, &sb); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExportShard(ctx, 5, &sb); !errors.Is(err, ErrNotServed) {
		t.Fatalf("export of a shard a does not serve: %v, want ErrNotServed", err)
	}
	header, _, _ := strings.Cut(sb.String(), "\n")
	for name, tc := range map[string]struct{ text, want string }{
		"other shard": {sb.String(), "line 1: the export is of shard 1 of 2, this replica is of shard 0"},
		"bad line":    {strings.Replace(header, `"shard":1`, `"shard":0`, 1) + "\n{\"owner\":1}\n", "line 2:"},
		"no header":   {"", "line 1: no header"},
		"cut short":   {strings.Replace(header, `"shard":1`, `"shard":0`, 1) + "\n", "line 2: the export ends without its last line"},
	} {
		path := filepath.Join(t.TempDir(), "export")
		if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, &Options{URL: c.url, Name: "b", Shards: 2, Serve: []int{0}, Dir: t.TempDir(),
			Signer: testKey, Logf: t.Logf, Bootstrap: map[int]string{0: path}})
		if !errors.Is(err, ErrBadExport) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrBadExport naming %q", name, err, tc.want)
		}
	}
}

// Over HTTP, a shard's export is an operator's: refused to others, and
// the export a node serves bootstraps a replica.
func TestExportOverHTTP(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 1)
	a := c.start("a", 0)
	if _, err := a.Put(ctx, store.Document{Body: offer("e1", "1")}); err != nil {
		t.Fatal(err)
	}
	c.waitAll(ctx)
	operator := func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer op" }
	srv := httptest.NewServer(a.Handler(&HandlerOptions{MayExport: operator}))
	defer srv.Close()
	if status, _, _ := do(t, "GET", srv.URL+"/shards/0/export", "", ""); status != http.StatusForbidden {
		t.Fatalf("export without the operator's token: %d, want 403", status)
	}
	if status, _, _ := do(t, "GET", srv.URL+"/shards/3/export", "Authorization: Bearer op", ""); status != http.StatusNotFound {
		t.Fatalf("export of a shard the node does not serve: %d, want 404", status)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/shards/0/export", nil)
	req.Header.Set("Authorization", "Bearer op")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	path := filepath.Join(t.TempDir(), "export")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		t.Fatal(err)
	}
	c.boot = map[int]string{0: path}
	b := c.start("b", 0)
	c.boot = nil
	c.waitAll(ctx)
	if got := b.replicas[0].handled.Load(); got != 0 {
		t.Fatalf("b applied %d entries, want none: the export held them all", got)
	}
	c.stop("a")
	res, err := b.Query(ctx, []byte(offerIntent), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cs, _ := res.Document["candidates"].([]any); len(cs) != 1 {
		t.Fatalf("b answers %v, want the one offer of the export", res.Document["candidates"])
	}
}

// An export outlives the server's WriteTimeout: it may take longer than
// any ordinary response.
func TestExportOutlivesWriteTimeout(t *testing.T) {
	ctx := context.Background()
	c := newTestCluster(t, 1)
	a := c.start("a", 0)
	if _, err := a.Put(ctx, store.Document{Body: offer("w1", "1")}); err != nil {
		t.Fatal(err)
	}
	c.waitAll(ctx)
	srv := httptest.NewUnstartedServer(a.Handler(&HandlerOptions{MayExport: func(*http.Request) bool { return true }}))
	srv.Config.WriteTimeout = time.Nanosecond // passed before the handler runs
	srv.Start()
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/shards/0/export")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !strings.Contains(string(body), `"end":true`) {
		t.Fatalf("export under a passed WriteTimeout: %v, %q", err, body)
	}
}
