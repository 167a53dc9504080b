package cluster

import (
	"context"
	"iter"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/nats-io/nats.go/jetstream"
)

// Change is one entry of a shard's stream: a put or a delete.
type Change struct {
	Shard int
	Seq   uint64 // the entry's stream sequence in its shard
	Op    string // "put" or "delete"
	Kind  canon.Kind
	Owner string
	ID    string // content id
}

// Subscribe fans in the shards' streams: it yields the changes after
// after (shard → the last sequence seen; nil or a missing shard means
// from the start) that the context's principal may see (public documents
// and its own), then waits for new ones, until ctx ends; it then yields
// ctx.Err() once. Each shard's changes come in its stream order; shards
// interleave. Resume by passing, per shard, the Seq of the last change
// received. A change is what was written, acknowledged by JetStream; an
// entry the replicas skipped (doc.go) is in the feed too.
func (n *Node) Subscribe(ctx context.Context, after map[int]uint64) iter.Seq2[Change, error] {
	return func(yield func(Change, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		reader := store.Principal(ctx)
		type item struct {
			c   Change
			err error
		}
		ch := make(chan item)
		for shard := range n.o.Shards {
			go func() {
				err := n.follow(ctx, shard, after[shard], func(c Change) bool {
					if c.Owner != store.Public && c.Owner != reader {
						return true
					}
					select {
					case ch <- item{c: c}:
						return true
					case <-ctx.Done():
						return false
					}
				})
				if err != nil && ctx.Err() == nil {
					select {
					case ch <- item{err: err}:
					case <-ctx.Done():
					}
				}
			}()
		}
		for {
			select {
			case it := <-ch:
				if !yield(it.c, it.err) || it.err != nil {
					return
				}
			case <-ctx.Done():
				yield(Change{}, ctx.Err())
				return
			}
		}
	}
}

// follow reads shard's stream after seq with an ordered consumer (which
// JetStream recreates after a lost server) and calls f for each entry
// until f returns false or ctx ends.
func (n *Node) follow(ctx context.Context, shard int, seq uint64, f func(Change) bool) error {
	cfg := jetstream.OrderedConsumerConfig{}
	if seq > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, seq+1
	}
	cons, err := n.js.OrderedConsumer(ctx, streamName(shard), cfg)
	if err != nil {
		return &ShardError{Shard: shard, Err: err}
	}
	msgs, err := cons.Messages()
	if err != nil {
		return &ShardError{Shard: shard, Err: err}
	}
	defer msgs.Stop()
	go func() { <-ctx.Done(); msgs.Stop() }()
	for {
		m, err := msgs.Next()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return &ShardError{Shard: shard, Err: err}
		}
		md, err := m.Metadata()
		if err != nil {
			return &ShardError{Shard: shard, Err: err}
		}
		e, err := decodeEntry(m.Data())
		if err != nil {
			continue // not an entry of ours; the replicas skip it too
		}
		if !f(Change{Shard: shard, Seq: md.Sequence.Stream, Op: e.Op, Kind: e.Kind, Owner: e.Owner, ID: e.ID}) {
			return nil
		}
	}
}
