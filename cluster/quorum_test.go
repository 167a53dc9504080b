package cluster

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/nats-io/nats-server/v2/server"
)

// freePorts returns n loopback ports nobody listens on now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// startNATSCluster starts n in-process NATS servers routed into one
// JetStream cluster and returns them and a URL naming them all.
func startNATSCluster(t *testing.T, n int) ([]*server.Server, string) {
	t.Helper()
	ports := freePorts(t, n)
	var routes []string
	for _, p := range ports {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	var servers []*server.Server
	var urls []string
	for i := range n {
		ns, err := server.NewServer(&server.Options{ServerName: fmt.Sprintf("s%d", i), Host: "127.0.0.1", Port: -1,
			JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "aqlstore-test", Host: "127.0.0.1", Port: ports[i]},
			Routes:  server.RoutesFromStr(strings.Join(routes, ","))})
		if err != nil {
			t.Fatal(err)
		}
		ns.Start()
		t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
		servers = append(servers, ns)
	}
	for _, ns := range servers {
		if !ns.ReadyForConnections(10 * time.Second) {
			t.Fatal("nats server not ready")
		}
		urls = append(urls, ns.ClientURL())
	}
	return servers, strings.Join(urls, ",")
}

// storedIDs lists the content ids of the public offers in a replica's store.
func storedIDs(t *testing.T, r *replica) []string {
	t.Helper()
	var ids []string
	r.life.RLock()
	defer r.life.RUnlock()
	for d, err := range r.s.ScanKinds(store.WithPrincipal(context.Background(), store.Public), []canon.Kind{canon.KindOffer}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID.String())
	}
	slices.Sort(ids)
	return ids
}

// A NATS server lost: writes go on while every stream keeps a quorum (2
// of 3 servers), no acknowledged write is lost, and the replicas converge
// to the same content ids.
func TestWritesSurviveALostServer(t *testing.T) {
	ctx := context.Background()
	servers, url := startNATSCluster(t, 3)
	open := func(name string, serve ...int) *Node {
		n, err := Open(ctx, &Options{URL: url, Name: name, Shards: 2, Replicas: 3, Serve: serve,
			Dir: t.TempDir(), Signer: testKey, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = n.Close() })
		return n
	}
	a, b := open("a", 0, 1), open("b", 0, 1)
	acked := map[string]bool{}
	put := func(n *Node, id string) {
		rc, err := n.Put(ctx, store.Document{Body: offer(id, "1")})
		if err != nil {
			t.Fatalf("put %s: %v", id, err)
		}
		acked[rc.ID.String()] = true
	}
	for i := range 10 {
		put(a, fmt.Sprintf("before%d", i))
	}
	// Lose the server that leads shard 0's stream: its writes wait for a
	// new leader.
	st, err := a.js.Stream(ctx, streamName(0))
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil || info.Cluster == nil {
		t.Fatalf("stream info: %v", err)
	}
	for _, ns := range servers {
		if ns.Name() == info.Cluster.Leader {
			ns.Shutdown()
			ns.WaitForShutdown()
		}
	}
	for i := range 10 {
		put([]*Node{a, b}[i%2], fmt.Sprintf("after%d", i))
	}
	for _, n := range []*Node{a, b} {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		if err := n.WaitCaughtUp(wctx); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
	for shard := range 2 {
		ia, ib := storedIDs(t, a.replicas[shard]), storedIDs(t, b.replicas[shard])
		if !slices.Equal(ia, ib) {
			t.Fatalf("shard %d: replicas differ: %v and %v", shard, ia, ib)
		}
		for _, id := range ia {
			if !acked[id] {
				t.Fatalf("shard %d holds %s, which no put acknowledged", shard, id)
			}
			delete(acked, id)
		}
	}
	if len(acked) > 0 {
		t.Fatalf("acknowledged writes lost: %v", acked)
	}
}
