package cluster

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/nats-io/nats-server/v2/server"
)

// startNATS starts an in-process NATS server with JetStream on a free
// loopback port and returns its client URL.
func startNATS(t testing.TB) string {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns.ClientURL()
}

var testKey = func() *sign.Signer {
	seed := make([]byte, ed25519.SeedSize)
	copy(seed, "cluster test key")
	return sign.NewSigner(ed25519.NewKeyFromSeed(seed))
}()

// testCluster is a set of nodes on one NATS server.
type testCluster struct {
	t        testing.TB
	url      string
	shards   int
	dir      string
	nodes    map[string]*Node
	wait     time.Duration  // Options.WaitApplied of the nodes started next (0: the default)
	replicas int            // stream replicas (0: 1)
	boot     map[int]string // Options.Bootstrap of the node started next
}

func newTestCluster(t testing.TB, shards int) *testCluster {
	return &testCluster{t: t, url: startNATS(t), shards: shards, dir: t.TempDir(), nodes: map[string]*Node{}}
}

// start opens node name serving the given shards; a node started again
// under its name resumes from its store and durable consumers.
func (c *testCluster) start(name string, serve ...int) *Node {
	c.t.Helper()
	n, err := Open(context.Background(), &Options{URL: c.url, Name: name, Shards: c.shards, Serve: serve,
		Dir: c.dir + "/" + name, Signer: testKey, Logf: c.t.Logf, WaitApplied: c.wait, Replicas: c.replicas, Bootstrap: c.boot})
	if err != nil {
		c.t.Fatal(err)
	}
	c.nodes[name] = n
	c.t.Cleanup(func() { _ = n.Close() })
	return n
}

func (c *testCluster) stop(name string) {
	c.t.Helper()
	if err := c.nodes[name].Close(); err != nil {
		c.t.Fatal(err)
	}
	delete(c.nodes, name)
}

// waitAll waits until every node applied everything written so far.
func (c *testCluster) waitAll(ctx context.Context) {
	c.t.Helper()
	for _, n := range c.nodes {
		if err := n.WaitCaughtUp(ctx); err != nil {
			c.t.Fatal(err)
		}
	}
}

func offer(id, price string) []byte {
	return fmt.Appendf(nil, `{"offer_id":%q,"price":%q,"title":"offer %s"}`, id, price, strings.ToUpper(id))
}
