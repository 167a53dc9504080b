package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Node is one aqlstore process of a cluster: it routes writes to the
// shards' streams, merges queries from the shards' replicas, and
// replicates the shards it serves. It is safe for concurrent use.
type Node struct {
	o        Options
	nc       *nats.Conn
	js       jetstream.JetStream
	replicas map[int]*replica

	mu     sync.Mutex
	closed bool
}

// Open connects to NATS, creates the shards' streams when missing, opens
// the local store of every served shard and starts applying its stream
// (catching up from where this node's durable consumer stopped), then
// answers the shard's requests.
func Open(ctx context.Context, opts *Options) (*Node, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.EnsureDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	// Servers started beside the node may not listen yet: keep trying,
	// and let stream creation (bounded) tell when it gives up.
	nc, err := nats.Connect(o.URL, nats.Name("aqlstore-"+o.Name), nats.MaxReconnects(-1),
		nats.RetryOnFailedConnect(true), nats.ReconnectWait(250*time.Millisecond))
	if err != nil {
		return nil, fmt.Errorf("cluster: connect to %s: %w", o.URL, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("cluster: jetstream: %w", err)
	}
	n := &Node{o: o, nc: nc, js: js, replicas: map[int]*replica{}}
	if err := n.start(ctx); err != nil {
		n.Close()
		return nil, err
	}
	return n, nil
}

func (n *Node) start(ctx context.Context) error {
	for i := range n.o.Shards {
		if err := n.createStream(ctx, i); err != nil {
			return fmt.Errorf("cluster: stream of shard %d: %w", i, err)
		}
	}
	for _, i := range n.o.Serve {
		if _, dup := n.replicas[i]; dup {
			continue
		}
		r, err := openReplica(ctx, n, i)
		if err != nil {
			return fmt.Errorf("cluster: replica of shard %d: %w", i, err)
		}
		n.replicas[i] = r
	}
	return nil
}

// streamStartup bounds how long Open waits for JetStream to accept a
// stream: servers started together elect their meta leader first.
const streamStartup = 30 * time.Second

// createStream creates shard i's stream, or checks that it exists as
// configured, retrying while JetStream is still starting.
func (n *Node) createStream(ctx context.Context, i int) error {
	ctx, cancel := context.WithTimeout(ctx, streamStartup)
	defer cancel()
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		// A request JetStream does not answer yet (no meta leader) would
		// wait out the whole bound: each attempt gets a few seconds.
		actx, acancel := context.WithTimeout(ctx, 3*time.Second)
		_, err := n.js.CreateOrUpdateStream(actx, jetstream.StreamConfig{
			Name: streamName(i), Subjects: []string{shardPrefix(i) + ".>"},
			Replicas: n.o.Replicas, Storage: jetstream.FileStorage,
		})
		acancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && apiErr.Code == 400 {
			return err // a configuration JetStream refuses: retrying will not help
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
	}
}

// Close stops applying and answering, closes the local stores and the
// NATS connection. Closing twice is harmless.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	n.mu.Unlock()
	var errs []error
	for _, r := range n.replicas {
		errs = append(errs, r.close())
	}
	// The server has dropped the replicas' queue subscriptions once the
	// flush returns: a query sent after Close meets no responders at once
	// rather than waiting for a reply that will not come.
	_ = n.nc.FlushTimeout(time.Second)
	n.nc.Close()
	return errors.Join(errs...)
}

// Shards returns the number of shards.
func (n *Node) Shards() int { return n.o.Shards }

// Applied returns the last stream sequence this node applied of shard i,
// and false when it does not serve shard i.
func (n *Node) Applied(i int) (uint64, bool) {
	r, ok := n.replicas[i]
	if !ok {
		return 0, false
	}
	return r.applied(), true
}

func (n *Node) stream(ctx context.Context, shard int) (jetstream.Stream, error) {
	s, err := n.js.Stream(ctx, streamName(shard))
	if err != nil {
		return nil, &ShardError{Shard: shard, Err: err}
	}
	return s, nil
}

// WaitCaughtUp waits until this node applied every entry its served
// shards' streams held when it was called, or ctx ends.
func (n *Node) WaitCaughtUp(ctx context.Context) error {
	for i, r := range n.replicas {
		s, err := n.stream(ctx, i)
		if err != nil {
			return err
		}
		info, err := s.Info(ctx)
		if err != nil {
			return &ShardError{Shard: i, Err: err}
		}
		bound := time.Minute
		if deadline, ok := ctx.Deadline(); ok {
			bound = time.Until(deadline)
		}
		if err := r.waitApplied(ctx, info.State.LastSeq, bound); err != nil {
			return err
		}
	}
	return nil
}
