package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
	"github.com/nats-io/nats-server/v2/server"
)

// The chaos test (make chaos): three NATS servers and three aqlstore
// nodes, each a process of its own, on loopback; 3 shards with 3 stream
// replicas, every shard applied by two nodes. While a writer puts
// documents (retrying each until acknowledged) and a reader queries, a
// random NATS server or node is killed with SIGKILL and restarted, cycle
// after cycle. Then: every query was answered or refused by a
// *ShardError; the replicas of every shard hold the same content ids;
// and those are exactly the acknowledged writes.

// TestMain runs this test binary as a NATS server or a node when the
// chaos test starts it so.
func TestMain(m *testing.M) {
	switch os.Getenv("AQLSTORE_CHAOS_ROLE") {
	case "nats":
		os.Exit(chaosNATS())
	case "node":
		os.Exit(chaosNode())
	}
	os.Exit(m.Run())
}

func chaosNATS() int {
	port, _ := strconv.Atoi(os.Getenv("CHAOS_PORT"))
	cport, _ := strconv.Atoi(os.Getenv("CHAOS_CLUSTER_PORT"))
	ns, err := server.NewServer(&server.Options{ServerName: os.Getenv("CHAOS_NAME"), Host: "127.0.0.1", Port: port,
		JetStream: true, StoreDir: os.Getenv("CHAOS_DIR"), NoLog: true, NoSigs: true,
		Cluster: server.ClusterOpts{Name: "aqlstore-chaos", Host: "127.0.0.1", Port: cport},
		Routes:  server.RoutesFromStr(os.Getenv("CHAOS_ROUTES"))})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ns.Start()
	select {} // until killed
}

func chaosNode() int {
	var serve []int
	for _, s := range strings.Split(os.Getenv("CHAOS_SERVE"), ",") {
		n, _ := strconv.Atoi(s)
		serve = append(serve, n)
	}
	// SIGTERM ends the run: apply everything stored, then close (after
	// Open, when it comes during Open).
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	ctx := context.Background()
	// Open gives up after a bound when a stream or consumer has no leader
	// (a loaded machine, servers just killed); a supervisor would start
	// the process again, and so does this loop, for a few minutes.
	var n *Node
	for start := time.Now(); ; {
		var err error
		n, err = Open(ctx, &Options{URL: os.Getenv("CHAOS_URL"), Name: os.Getenv("CHAOS_NAME"), Shards: 3, Replicas: 3,
			Serve: serve, Dir: os.Getenv("CHAOS_DIR"), Signer: testKey})
		if err == nil {
			break
		}
		fmt.Fprintln(os.Stderr, "open (retrying):", err)
		if time.Since(start) > 3*time.Minute {
			return 1
		}
		time.Sleep(time.Second)
	}
	<-sig
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err := n.WaitCaughtUp(wctx)
	if cerr := n.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// proc is one process of the chaos cluster.
type proc struct {
	name string
	env  []string
	cmd  *exec.Cmd
}

func (p *proc) start(t *testing.T) {
	t.Helper()
	p.cmd = exec.Command(os.Args[0])
	p.cmd.Env = append(os.Environ(), p.env...)
	p.cmd.Stderr = os.Stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
}

func (p *proc) kill() {
	_ = p.cmd.Process.Kill() // SIGKILL
	_ = p.cmd.Wait()
}

func TestChaos(t *testing.T) {
	cycles, _ := strconv.Atoi(os.Getenv("AQLSTORE_CHAOS_CYCLES"))
	if cycles == 0 {
		t.Skip("set AQLSTORE_CHAOS_CYCLES (make chaos) to run the chaos test")
	}
	dir := t.TempDir()
	ports := freePorts(t, 6)
	var routes, urls []string
	for i := range 3 {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[3+i]))
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	url := strings.Join(urls, ",")
	var procs []*proc
	for i := range 3 {
		procs = append(procs, &proc{name: fmt.Sprintf("nats%d", i), env: []string{"AQLSTORE_CHAOS_ROLE=nats",
			"CHAOS_NAME=" + fmt.Sprintf("nats%d", i), "CHAOS_PORT=" + strconv.Itoa(ports[i]),
			"CHAOS_CLUSTER_PORT=" + strconv.Itoa(ports[3+i]), "CHAOS_ROUTES=" + strings.Join(routes, ","),
			"CHAOS_DIR=" + filepath.Join(dir, fmt.Sprintf("nats%d", i))}})
	}
	for i := range 3 {
		name := fmt.Sprintf("node%d", i)
		procs = append(procs, &proc{name: name, env: []string{"AQLSTORE_CHAOS_ROLE=node", "CHAOS_NAME=" + name,
			"CHAOS_URL=" + url, "CHAOS_SERVE=" + fmt.Sprintf("%d,%d", i, (i+1)%3), "CHAOS_DIR=" + filepath.Join(dir, name)}})
	}
	for _, p := range procs {
		p.start(t)
	}
	defer func() {
		for _, p := range procs {
			p.kill()
		}
	}()
	ctx := context.Background()
	driver, err := Open(ctx, &Options{URL: url, Name: "driver", Shards: 3, Replicas: 3, Signer: testKey, Logf: t.Logf,
		RequestTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer driver.Close()

	// Before the chaos: the cluster answers.
	if _, err := driver.Put(ctx, store.Document{Body: offer("warm", "1")}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for {
		if _, err := driver.Query(ctx, []byte(offerIntent), nil); err == nil {
			break
		} else if time.Since(start) > time.Minute {
			t.Fatalf("the cluster does not answer: %v", err)
		}
	}
	t.Logf("cluster up after %v", time.Since(start))
	acked, refused, answered := chaosLoad(t, driver, procs, cycles)
	acked[canon.Sum(offerCanonical(t, "warm")).String()] = true
	t.Logf("%d cycles: %d writes acknowledged, %d queries answered, %d refused by a shard error", cycles, len(acked), answered, refused)

	// End: every node applies what is stored, closes, and its stores are read.
	for _, p := range procs[3:] {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("%s did not finish cleanly: %v", p.name, err)
		}
	}
	checkReplicas(t, dir, acked)
}

// chaosLoad writes and queries while it kills and restarts processes.
func chaosLoad(t *testing.T, driver *Node, procs []*proc, cycles int) (acked map[string]bool, refused, answered int) {
	acked = map[string]bool{}
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // the writer: each document until acknowledged
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			for {
				t0 := time.Now()
				rc, err := driver.Put(context.Background(), store.Document{Body: offer(fmt.Sprintf("w%d", i), "1")})
				if d := time.Since(t0); d > 5*time.Second {
					t.Logf("put w%d took %v (%v)", i, d, err)
				}
				if err == nil {
					mu.Lock()
					acked[rc.ID.String()] = true
					mu.Unlock()
					break
				}
				var se *ShardError
				if !errors.As(err, &se) {
					t.Errorf("put w%d: %v, want success or a *ShardError", i, err)
					return
				}
			}
		}
	})
	wg.Go(func() { // the reader
		for {
			select {
			case <-stop:
				return
			default:
			}
			_, err := driver.Query(context.Background(), []byte(offerIntent), &QueryOptions{MaxRejected: -1})
			var se *ShardError
			mu.Lock()
			switch {
			case err == nil:
				answered++
			case errors.As(err, &se):
				refused++
				time.Sleep(10 * time.Millisecond) // a refusal is instant: do not spin
			default:
				t.Errorf("query: %v, want an answer or a *ShardError", err)
			}
			mu.Unlock()
		}
	})
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	for range cycles {
		p := procs[r.IntN(len(procs))]
		p.kill()
		time.Sleep(time.Duration(100+r.IntN(400)) * time.Millisecond) // downtime: the point of the test
		p.start(t)
		time.Sleep(time.Duration(200+r.IntN(400)) * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	return acked, refused, answered
}

// checkReplicas reads every node's shard stores: both replicas of a
// shard hold the same content ids, and the shards together hold exactly
// the acknowledged writes.
func checkReplicas(t *testing.T, dir string, acked map[string]bool) {
	t.Helper()
	found := map[string]bool{}
	for shard := range 3 {
		var lists [][]string
		for node := range 3 {
			if node != shard && (node+1)%3 != shard {
				continue
			}
			s, _, err := index.Open(filepath.Join(dir, fmt.Sprintf("node%d", node), fmt.Sprintf("shard-%d", shard)), nil)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for d, err := range s.ScanKinds(store.WithPrincipal(context.Background(), store.Public), []canon.Kind{canon.KindOffer}) {
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, d.ID.String())
			}
			_ = s.Close()
			slices.Sort(ids)
			lists = append(lists, ids)
		}
		if !slices.Equal(lists[0], lists[1]) {
			t.Fatalf("shard %d: the replicas differ (%d and %d documents)", shard, len(lists[0]), len(lists[1]))
		}
		for _, id := range lists[0] {
			if !acked[id] {
				t.Errorf("shard %d holds %s, which no put acknowledged", shard, id)
			}
			found[id] = true
		}
	}
	for id := range acked {
		if !found[id] {
			t.Errorf("acknowledged write %s is in no shard", id)
		}
	}
}

func offerCanonical(t *testing.T, id string) []byte {
	d, err := canon.ParseDocument(offer(id, "1"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return d.Canonical
}
