package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/aqlstore/aqlstore/cluster"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server"
	"github.com/spf13/cobra"
)

// clusterFlags are serve's flags for running as a node of a cluster on
// NATS JetStream (package cluster) instead of over one store.
type clusterFlags struct {
	url      string
	node     string
	shards   int
	serve    string
	replicas int
	keyFile  string
	boot     string
}

func (f *clusterFlags) declare(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.url, "cluster", "", "run as a cluster node on these NATS JetStream servers (nats://host:port,…) instead of over one store")
	fs.StringVar(&f.node, "node", "", "--cluster: this node's name (names its durable consumers; keep it across restarts)")
	fs.IntVar(&f.shards, "shards", 1, "--cluster: number of shards (the same on every node; fixed once documents are stored)")
	fs.StringVar(&f.serve, "serve-shards", "", "--cluster: the shards this node replicates, e.g. 0,1 (none: it only routes and merges)")
	fs.IntVar(&f.replicas, "replicas", 1, "--cluster: JetStream replicas of each shard's stream (min(3, NATS servers))")
	fs.StringVar(&f.boot, "bootstrap", "", "--cluster: start a new replica of a shard from another replica's export (GET /shards/{i}/export), e.g. 1=shard1.ndjson,2=shard2.ndjson")
	fs.StringVar(&f.keyFile, "cluster-key", "", "--cluster: the signing key every node shares, so a cursor works on any node (default: --dir's key)")
}

func (f *clusterFlags) shardList() ([]int, error) {
	var out []int
	for _, s := range strings.Split(f.serve, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, usageError{fmt.Errorf("--serve-shards %q: %q is not a shard number; write e.g. 0,2", f.serve, s)}
		}
		out = append(out, n)
	}
	return out, nil
}

// bootstrapFiles reads --bootstrap: shard=path, comma-separated.
func (f *clusterFlags) bootstrapFiles() (map[int]string, error) {
	out := map[int]string{}
	for _, part := range strings.Split(f.boot, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		shard, path, ok := strings.Cut(part, "=")
		n, err := strconv.Atoi(shard)
		if !ok || err != nil || path == "" {
			return nil, usageError{fmt.Errorf("--bootstrap %q: %q is not shard=path; write e.g. 1=shard1.ndjson", f.boot, part)}
		}
		out[n] = path
	}
	return out, nil
}

// runCluster serves a cluster node over HTTP (cluster.Node.Handler) until
// ctx ends.
func (c *serveCommand) runCluster(ctx context.Context) error {
	f := &c.cluster
	serve, err := f.shardList()
	if err != nil {
		return err
	}
	boot, err := f.bootstrapFiles()
	if err != nil {
		return err
	}
	cfg, err := c.config() // auth, trust file and the loopback rule, as for one store
	if err != nil {
		return err
	}
	defer c.logs.Close()
	key := f.keyFile
	if key == "" {
		key = keyPath(c.m.dir)
	}
	priv, _, err := sign.LoadOrCreateKey(key)
	if err != nil {
		return fmt.Errorf("signing key: %w", err)
	}
	opts := &cluster.Options{URL: f.url, Name: f.node, Shards: f.shards, Replicas: f.replicas, Serve: serve, Bootstrap: boot,
		Dir: c.m.dir, Signer: sign.NewSigner(priv), Keys: cfg.Keys}
	if opts.Store, err = c.m.storeOptions(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	node, err := cluster.Open(ctx, opts)
	if err != nil {
		ln.Close()
		return err
	}
	defer node.Close()
	srv := &http.Server{Handler: node.Handler(&cluster.HandlerOptions{Principal: principalOf(cfg.Auth), MaxBody: c.maxBody,
		MayExport: operatorOf(cfg.Auth)}),
		ReadHeaderTimeout: cfg.ReadHeaderTimeout, ReadTimeout: cfg.ReadTimeout, WriteTimeout: cfg.WriteTimeout, IdleTimeout: cfg.IdleTimeout}
	fmt.Fprintf(c.m.Stdout, "aqlstore cluster node %s on http://%s: %d shards, serving %v, NATS %s\n", f.node, ln.Addr(), f.shards, serve, f.url)
	fmt.Fprintf(c.m.Stdout, "  put    curl -s http://%s/documents -d @doc.json\n  query  curl -s http://%s/oap/intent -d @intent.json\n", ln.Addr(), ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// principalOf maps a request's bearer token to its tenant; without an
// auth file every request acts as public.
func principalOf(a *server.Auth) func(*http.Request) (string, error) {
	return func(r *http.Request) (string, error) {
		if !a.Enabled() {
			return "public", nil
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return "public", nil
		}
		did, ok := a.Tenant(tok)
		if !ok {
			return "", errors.New("the bearer token is not in the auth file")
		}
		return did, nil
	}
}

// operatorOf says whether a request may take a shard's export: without
// an auth file the node listens on loopback only and anyone there may;
// with one, the caller's tenant must be among its operators.
func operatorOf(a *server.Auth) func(*http.Request) bool {
	principal := principalOf(a)
	return func(r *http.Request) bool {
		if !a.Enabled() {
			return true
		}
		did, err := principal(r)
		return err == nil && a.Operator(did)
	}
}
