package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/index"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The scaling run (make cluster-bench): nodes are `aqlstore serve
// --cluster` processes on one in-process NATS server (R1 streams), one
// node per shard, beside one `aqlstore serve` over a local store. Each
// configuration ingests the same generated manifests over HTTP
// (acknowledged writes), waits until every shard applied them, then runs
// a selective query (the 0.1% category) concurrently and one at a time.
// It prints, per configuration, documents/s acknowledged and applied,
// queries/s with p50 and p99, the lone query's p50, and per node its RSS,
// the Go heap its store holds once open, its store's bytes on disk and
// index bytes. Everything shares the machine's cores: the figures say
// what sharding costs here, not what it gains across machines.
//
//	AQLSTORE_SCALE_DOCS=20000 AQLSTORE_BIN=bin/aqlstore go test -run '^TestClusterScaling$' -v ./cluster/

const scaleToken = "scale-bench-token-0123456789"

const scaleTenant = "did:web:bench.example"

// scaleIntent selects the corpus's 0.1% category (internal/corpus).
const scaleIntent = `{"intent_id":"urn:oap:intent:scale","issuer_did":"did:web:bench.example","category":"discovery",
 "constraints":[{"path":"/tool/categories/*","operator":"eq","value":"sel_0.1pct"}],"projection":{"include":["/tool/id"]},
 "validity":{"from":"2026-01-01T00:00:00Z","to":"2036-01-01T00:00:00Z"},"resolution_policy":"full_set",
 "signature":{"alg":"EdDSA","value":"x"}}`

type scaleRun struct {
	t       *testing.T
	bin     string
	dir     string
	auth    string
	docs    [][]byte
	queries int
	client  *http.Client
}

// scaleRow is one configuration's figures.
type scaleRow struct {
	name           string
	ingest         float64       // acknowledged documents/s
	applied        time.Duration // from the first put until every shard applied the last
	qps            float64
	p50, p99, lone time.Duration
	nodes          []nodeFigures
}

type nodeFigures struct {
	name       string
	docs       uint64
	rss        uint64 // bytes
	disk       uint64 // du -sb of the store directory
	index, all uint64 // store.DiskUsage: index and total sstable bytes
	heap       uint64 // Go heap the open store holds (columns, caches), after a GC
	stream     uint64 // bytes of the shard's JetStream stream (one replica); 0 for a local store
}

func TestClusterScaling(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("AQLSTORE_SCALE_DOCS"))
	if n == 0 {
		t.Skip("set AQLSTORE_SCALE_DOCS and AQLSTORE_BIN (make cluster-bench) to run the scaling figures")
	}
	bin, err := filepath.Abs(os.Getenv("AQLSTORE_BIN"))
	if err != nil || os.Getenv("AQLSTORE_BIN") == "" {
		t.Fatal("set AQLSTORE_BIN to a built aqlstore binary (make build)")
	}
	queries, _ := strconv.Atoi(os.Getenv("AQLSTORE_SCALE_QUERIES"))
	if queries == 0 {
		queries = 1000
	}
	dir := t.TempDir()
	sr := &scaleRun{t: t, bin: bin, dir: dir, queries: queries, auth: filepath.Join(dir, "auth.json"),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	if err := os.WriteFile(sr.auth, fmt.Appendf(nil, `{"tokens":{%q:%q}}`, scaleToken, scaleTenant), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "gen", "--kind", "manifest", "-n", strconv.Itoa(n), "--seed", "1").Output()
	if err != nil {
		t.Fatalf("gen: %v", err)
	}
	for line := range bytes.Lines(out) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			sr.docs = append(sr.docs, line)
		}
	}
	var rows []scaleRow
	for _, shards := range []int{1, 2, 4} {
		rows = append(rows, sr.cluster(shards))
	}
	rows = append(rows, sr.local())
	fmt.Printf("%d manifests, ingest by 8 HTTP clients, %d queries by 4 clients then 200 one at a time\n", len(sr.docs), queries)
	fmt.Printf("%-9s %9s %10s %9s %8s %8s %9s\n", "config", "ingest/s", "applied/s", "query/s", "p50", "p99", "lone p50")
	for _, r := range rows {
		fmt.Printf("%-9s %9.0f %10.0f %9.0f %8s %8s %9s\n", r.name, r.ingest, float64(len(sr.docs))/r.applied.Seconds(),
			r.qps, r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), r.lone.Round(10*time.Microsecond))
	}
	fmt.Printf("\n%-9s %-6s %7s %8s %9s %9s %11s %10s %12s\n", "config", "node", "docs", "RSS MiB", "heap MiB", "du bytes", "index bytes", "sst bytes", "stream bytes")
	for _, r := range rows {
		for _, nf := range r.nodes {
			fmt.Printf("%-9s %-6s %7d %8.1f %9.1f %9d %11d %10d %12d\n", r.name, nf.name, nf.docs, float64(nf.rss)/(1<<20),
				float64(nf.heap)/(1<<20), nf.disk, nf.index, nf.all, nf.stream)
		}
	}
}

// cluster measures shards nodes, each serving one shard.
func (sr *scaleRun) cluster(shards int) scaleRow {
	t := sr.t
	url := startNATS(t)
	dir := filepath.Join(sr.dir, fmt.Sprintf("cluster-%d", shards))
	ports := freePorts(t, shards)
	var nodes []*child
	var addrs []string
	for i := range shards {
		addr := fmt.Sprintf("127.0.0.1:%d", ports[i])
		c := sr.start(t, fmt.Sprintf("n%d", i), filepath.Join(dir, fmt.Sprintf("n%d", i)), "serve", "--addr", addr,
			"--auth", sr.auth, "--cluster", url, "--node", fmt.Sprintf("n%d", i), "--shards", strconv.Itoa(shards),
			"--serve-shards", strconv.Itoa(i), "--cluster-key", filepath.Join(dir, "key.jwk"))
		nodes = append(nodes, c)
		addrs = append(addrs, "http://"+addr)
		sr.waitHealthy(addrs[i])
	}
	row := scaleRow{name: fmt.Sprintf("shards=%d", shards)}
	last := make([]atomic.Uint64, shards)
	start := time.Now()
	row.ingest = sr.ingest(func(i int) string { return addrs[i%shards] + "/documents?kind=manifest" }, func(b []byte) {
		var rc struct {
			Shard int    `json:"shard"`
			Seq   uint64 `json:"seq"`
		}
		if err := json.Unmarshal(b, &rc); err != nil {
			t.Errorf("receipt %s: %v", b, err)
			return
		}
		for old := last[rc.Shard].Load(); rc.Seq > old && !last[rc.Shard].CompareAndSwap(old, rc.Seq); old = last[rc.Shard].Load() {
		}
	})
	for i, a := range addrs {
		sr.waitApplied(a, i, last[i].Load())
	}
	row.applied = time.Since(start)
	streams := streamBytes(t, url, shards)
	sr.query(&row, func(i int) string { return addrs[i%shards] + "/oap/intent" })
	for i, c := range nodes {
		nf := nodeFigures{name: c.name, docs: last[i].Load(), rss: c.rss(), stream: streams[i]}
		c.stop(t)
		nf.disk, nf.index, nf.all, nf.heap = sr.storeBytes(filepath.Join(dir, c.name, fmt.Sprintf("shard-%d", i)))
		row.nodes = append(row.nodes, nf)
	}
	return row
}

// streamBytes returns the bytes each shard's stream holds (StreamInfo).
func streamBytes(t *testing.T, url string, shards int) []uint64 {
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]uint64, shards)
	for i := range out {
		st, err := js.Stream(context.Background(), streamName(i))
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out[i] = info.State.Bytes
	}
	return out
}

// local measures one aqlstore serve over a local store.
func (sr *scaleRun) local() scaleRow {
	t := sr.t
	dir := filepath.Join(sr.dir, "local")
	addr := fmt.Sprintf("127.0.0.1:%d", freePorts(t, 1)[0])
	c := sr.start(t, "local", dir, "serve", "--addr", addr, "--auth", sr.auth, "--rate-limit", "0")
	base := "http://" + addr
	sr.waitHealthy(base)
	row := scaleRow{name: "local"}
	var docs atomic.Uint64
	start := time.Now()
	row.ingest = sr.ingest(func(int) string { return base + "/storage/documents?kind=manifest" }, func([]byte) { docs.Add(1) })
	row.applied = time.Since(start)
	sr.query(&row, func(int) string { return base + "/oap/intent" })
	nf := nodeFigures{name: "local", docs: docs.Load(), rss: c.rss()}
	c.stop(t)
	nf.disk, nf.index, nf.all, nf.heap = sr.storeBytes(dir)
	row.nodes = append(row.nodes, nf)
	return row
}

// ingest posts every document, 8 at a time, and returns documents/s.
func (sr *scaleRun) ingest(url func(i int) string, receipt func([]byte)) float64 {
	next := atomic.Int64{}
	var wg sync.WaitGroup
	start := time.Now()
	for w := range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(sr.docs) && !sr.t.Failed(); i = int(next.Add(1)) - 1 {
				b, status := sr.post(url(w), sr.docs[i])
				if status != http.StatusCreated && status != http.StatusOK {
					sr.t.Errorf("put %d: %d %s", i, status, b)
					return
				}
				receipt(b)
			}
		})
	}
	wg.Wait()
	if sr.t.Failed() {
		sr.t.FailNow()
	}
	return float64(len(sr.docs)) / time.Since(start).Seconds()
}

// query runs the selective intent queries times by 4 clients, then 200
// times alone.
func (sr *scaleRun) query(row *scaleRow, url func(i int) string) {
	run := func(clients, n int) []time.Duration {
		lat := make([]time.Duration, n)
		next := atomic.Int64{}
		var wg sync.WaitGroup
		for w := range clients {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < n && !sr.t.Failed(); i = int(next.Add(1)) - 1 {
					t0 := time.Now()
					b, status := sr.post(url(w+i), []byte(scaleIntent))
					lat[i] = time.Since(t0)
					if status != http.StatusOK || !bytes.Contains(b, []byte(`"candidates":[{`)) {
						sr.t.Errorf("query: %d %.300s", status, b)
						return
					}
				}
			})
		}
		wg.Wait()
		if sr.t.Failed() {
			sr.t.FailNow()
		}
		slices.Sort(lat)
		return lat
	}
	start := time.Now()
	lat := run(4, sr.queries)
	row.qps = float64(sr.queries) / time.Since(start).Seconds()
	row.p50, row.p99 = lat[len(lat)/2], lat[len(lat)*99/100]
	row.lone = run(1, 200)[100]
}

func (sr *scaleRun) post(url string, body []byte) ([]byte, int) {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+scaleToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := sr.client.Do(req)
	if err != nil {
		return []byte(err.Error()), 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b, resp.StatusCode
}

// waitHealthy waits until the server at base answers /healthz.
func (sr *scaleRun) waitHealthy(base string) {
	sr.poll(base, func([]byte) bool { return true })
}

// waitApplied waits until the node at base applied seq of shard.
func (sr *scaleRun) waitApplied(base string, shard int, seq uint64) {
	sr.poll(base, func(b []byte) bool {
		var h struct {
			Applied map[string]uint64 `json:"applied"`
		}
		return json.Unmarshal(b, &h) == nil && h.Applied[strconv.Itoa(shard)] >= seq
	})
}

func (sr *scaleRun) poll(base string, done func([]byte) bool) {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := sr.client.Get(base + "/healthz"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && done(b) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond) // a process's state, which no channel announces
	}
	sr.t.Fatalf("%s: not ready after 5 minutes", base)
}

// storeBytes returns du -sb of dir, the store's DiskUsage, and the Go
// heap the store holds once open.
func (sr *scaleRun) storeBytes(dir string) (disk, ix, all, heap uint64) {
	out, err := exec.Command("du", "-sb", dir).Output()
	if err != nil {
		sr.t.Fatalf("du %s: %v", dir, err)
	}
	disk, _ = strconv.ParseUint(strings.Fields(string(out))[0], 10, 64)
	before := heapAlloc()
	s, _, err := index.Open(dir, nil)
	if err != nil {
		sr.t.Fatal(err)
	}
	defer s.Close()
	if after := heapAlloc(); after > before {
		heap = after - before
	}
	u, err := s.DiskUsage()
	if err != nil {
		sr.t.Fatal(err)
	}
	return disk, u.Index, u.Total, heap
}

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// child is an aqlstore process.
type child struct {
	name string
	cmd  *exec.Cmd
}

func (sr *scaleRun) start(t *testing.T, name, dir string, args ...string) *child {
	c := &child{name: name, cmd: exec.Command(sr.bin, append([]string{"--dir", dir}, args...)...)}
	// Its request log would drown the figures: it goes beside its store.
	log, err := os.Create(filepath.Join(sr.dir, name+"-"+filepath.Base(filepath.Dir(dir))+".log"))
	if err != nil {
		t.Fatal(err)
	}
	c.cmd.Stdout, c.cmd.Stderr = log, log
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = log.Close() })
	t.Cleanup(func() { _ = c.cmd.Process.Kill(); _ = c.cmd.Wait() })
	return c
}

// rss is the process's resident set (VmRSS), in bytes.
func (c *child) rss() uint64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// stop ends the process with SIGTERM and waits for it.
func (c *child) stop(t *testing.T) {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not stop within a minute of SIGTERM", c.name)
	}
}
