package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/nats-io/nats.go"
)

// A node's side of request-reply: it asks one replica of a shard (the
// queue group picks which) and reads its reply; replica.go's serve is the
// other side.

// scatter sends one request to one replica of every shard, in parallel.
// A shard that no replica answers is an error naming it, or, with
// partial, a missing shard.
func (n *Node) scatter(ctx context.Context, partial bool, reqFor func(shard int) *request) (map[int]*reply, []int, error) {
	replies := make([]*reply, n.o.Shards)
	errs := make([]error, n.o.Shards)
	var wg sync.WaitGroup
	for i := range n.o.Shards {
		wg.Go(func() { replies[i], errs[i] = n.ask(ctx, i, reqFor(i)) })
	}
	wg.Wait()
	out := map[int]*reply{}
	var missing []int
	for i, err := range errs {
		switch {
		case err == nil:
			out[i] = replies[i]
		case partial && errors.Is(err, ErrShardUnavailable):
			missing = append(missing, i)
		default:
			return nil, nil, err
		}
	}
	return out, missing, nil
}

// ask sends req to shard's queue group and returns its reply. A shard
// this node serves answers here, without the round trip through NATS and
// the encoding of request and reply.
func (n *Node) ask(ctx context.Context, shard int, req *request) (*reply, error) {
	if r, ok := n.replicas[shard]; ok {
		rep := r.answer(ctx, req)
		if err := ctx.Err(); err != nil && rep.Error != nil {
			// The caller's time ran out while the replica caught up (a
			// write's attempt has 2 s, WaitApplied 5): the shard was not
			// reachable in time, as a remote one that did not answer, and
			// the deadline stays in the chain so that the write retries.
			return nil, &ShardError{Shard: shard, Err: fmt.Errorf("%w: the replica did not answer in time (%w)", ErrShardUnavailable, err)}
		}
		return replyOf(shard, rep)
	}
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	bound := n.o.RequestTimeout
	if req.After > 0 {
		bound += n.o.WaitApplied
	}
	var m *nats.Msg
	// Twice: a replica that dies holding the request never answers, and
	// the second request goes to a replica still in the queue group.
	for try := 0; try < 2; try++ {
		actx, cancel := context.WithTimeout(ctx, bound)
		m, err = n.nc.RequestWithContext(actx, requestSubject(shard), data)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			break
		}
	}
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return nil, &ShardError{Shard: shard, Err: fmt.Errorf("%w: no live replica", ErrShardUnavailable)}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout):
		// Keeps the deadline in the chain: a write's locate, retried while
		// the error is transient (retrying), tries again after a replica
		// that was slow to catch up.
		return nil, &ShardError{Shard: shard, Err: fmt.Errorf("%w: no replica answered in time (%w)", ErrShardUnavailable, err)}
	case err != nil:
		return nil, &ShardError{Shard: shard, Err: fmt.Errorf("%w: %v", ErrShardUnavailable, err)}
	}
	rep, err := decodeReply(m.Data)
	if err != nil {
		return nil, &ShardError{Shard: shard, Err: err}
	}
	return replyOf(shard, rep)
}

// replyOf returns rep, or the error it carries.
func replyOf(shard int, rep *reply) (*reply, error) {
	if e := rep.Error; e != nil {
		switch e.Status {
		case http.StatusServiceUnavailable:
			return nil, &ShardError{Shard: shard, Err: fmt.Errorf("%w: %s", ErrShardUnavailable, e.Message)}
		case http.StatusNotFound:
			return nil, fmt.Errorf("%w: %s", store.ErrNotFound, e.Message)
		}
		return nil, &ShardError{Shard: shard, Err: e}
	}
	return rep, nil
}

// locate finds the shard entry of principal's document id: first where a
// document without a natural key would be, then by asking every shard.
func (n *Node) locate(ctx context.Context, principal string, id canon.ContentID) (*reply, error) {
	rt := routeOf(n.o.Shards, principal, "", "", id)
	if prev, _, err := n.lastEntry(ctx, rt); err == nil && prev != nil && prev.live() && prev.ID == id.String() {
		return &reply{Kind: prev.Kind}, nil
	}
	var (
		mu    sync.Mutex
		found *reply
	)
	// Not scatter, which stops at the first error: a NotFound on one
	// shard must not hide the document on another.
	var wg sync.WaitGroup
	var unavailable, failed error
	for i := range n.o.Shards {
		wg.Go(func() {
			// The replica must have applied the stream as it is now, so
			// that a delete right after its put finds the document.
			var last uint64
			if s, err := n.stream(ctx, i); err == nil {
				if info, err := s.Info(ctx); err == nil {
					last = info.State.LastSeq
				}
			}
			rep, err := n.ask(ctx, i, &request{Op: "locate", Principal: principal, ID: id.String(), After: last})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				found = rep
			case errors.Is(err, ErrShardUnavailable):
				unavailable = err
			case !errors.Is(err, store.ErrNotFound):
				failed = err
			}
		})
	}
	wg.Wait()
	switch {
	case found != nil:
		return found, nil
	case unavailable != nil:
		return nil, unavailable
	case failed != nil:
		return nil, failed // a shard that failed may hold it: not "not found"
	}
	return nil, fmt.Errorf("%w: %s", store.ErrNotFound, id)
}
