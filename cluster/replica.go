package cluster

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// replica applies one shard's stream to a local store and answers the
// shard's requests.
//
// The applied sequence is the durable consumer's ack floor: an entry is
// acknowledged after the store committed it, and only one entry is in
// flight (MaxAckPending 1), so a crash between the commit and the ack
// redelivers that one entry, which is then a no-op: a put of content the
// owner already stores returns the stored document, a delete of a
// document that is gone is ErrNotFound. No sequence needs to be written
// into the store's own commit for that.
type replica struct {
	n      *Node
	shard  int
	s      *store.Store
	ix     *index.Index
	signer *sign.Signer // signs the shard-local response, which the node re-signs
	cc     jetstream.ConsumeContext
	sub    *nats.Subscription
	slots  chan struct{} // requests answered at once (serve)

	// applyMu is held while an entry is applied and while an export
	// reads, so that an export reflects a sequence.
	applyMu  sync.Mutex
	handled  atomic.Uint64 // entries received from the stream (applied or skipped)
	resolved atomic.Int64  // candidates the last query resolved in full

	// life guards the store: handlers hold it for reading, close for
	// writing, so that no request or entry reaches a closed store.
	life   sync.RWMutex
	closed bool

	mu      sync.Mutex
	seq     uint64        // last applied stream sequence
	changed chan struct{} // closed when seq advances
	order   orderBook
}

func openReplica(ctx context.Context, n *Node, shard int) (*replica, error) {
	so := n.o.Store
	s, ix, err := index.Open(filepath.Join(n.o.Dir, fmt.Sprintf("shard-%d", shard)), &so)
	if err != nil {
		return nil, err
	}
	r := &replica{n: n, shard: shard, s: s, ix: ix, signer: n.o.Signer, changed: make(chan struct{}), order: orderBook{},
		slots: make(chan struct{}, 2*runtime.GOMAXPROCS(0))}
	if r.signer == nil {
		_, priv, _ := ed25519.GenerateKey(nil)
		r.signer = sign.NewSigner(priv)
	}
	if err := r.start(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return r, nil
}

func (r *replica) start(ctx context.Context) error {
	st, err := r.n.js.Stream(ctx, streamName(r.shard))
	if err != nil {
		return err
	}
	cons, bootstrapped, err := r.consumer(ctx, st)
	if err != nil {
		return fmt.Errorf("durable consumer: %w", err)
	}
	info, err := retrying(ctx, func(ctx context.Context) (*jetstream.ConsumerInfo, error) { return cons.Info(ctx) })
	if err != nil {
		return fmt.Errorf("durable consumer: %w", err)
	}
	if bootstrapped == nil {
		if err := r.rebuildOrder(ctx, info.AckFloor.Stream); err != nil {
			return err
		}
		r.seq = info.AckFloor.Stream
	} else {
		r.seq = max(info.AckFloor.Stream, *bootstrapped) // the export brought the merge order
	}
	if r.cc, err = cons.Consume(r.handle); err != nil {
		return fmt.Errorf("consume: %w", err)
	}
	if r.sub, err = r.n.nc.QueueSubscribe(requestSubject(r.shard), queueGroup(r.shard), r.serve); err != nil {
		return err
	}
	return r.n.nc.Flush() // the server knows the replica answers once Open returns
}

// consumer returns the node's durable consumer of the shard's stream,
// creating it when the node never replicated the shard: from the stream's
// start, or, with an export to bootstrap from, after the export's
// sequence, which it then returns. Without an export it is created or
// updated as it always was (the meta leader answers that, even while the
// consumer's own group elects a leader); a consumer a bootstrap created
// starts elsewhere, which JetStream refuses to update, and is then looked
// up instead.
func (r *replica) consumer(ctx context.Context, st jetstream.Stream) (jetstream.Consumer, *uint64, error) {
	cfg := jetstream.ConsumerConfig{Durable: "node-" + r.n.o.Name, AckPolicy: jetstream.AckExplicitPolicy,
		MaxAckPending: 1, DeliverPolicy: jetstream.DeliverAllPolicy, AckWait: 30 * time.Second}
	path, boot := r.n.o.Bootstrap[r.shard]
	if !boot {
		// Retried like a write: a stream that just lost a server may take
		// a moment to answer.
		cons, err := retrying(ctx, func(ctx context.Context) (jetstream.Consumer, error) {
			return st.CreateOrUpdateConsumer(ctx, cfg)
		})
		var apiErr *jetstream.APIError
		if !errors.As(err, &apiErr) {
			return cons, nil, err
		}
		// Refused, as the start of a bootstrapped consumer is: use it as
		// it is, if it exists.
		if existing, lerr := st.Consumer(ctx, cfg.Durable); lerr == nil {
			return existing, nil, nil
		}
		return nil, nil, err
	}
	cons, err := retrying(ctx, func(ctx context.Context) (jetstream.Consumer, error) { return st.Consumer(ctx, cfg.Durable) })
	if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return cons, nil, err
	}
	seq, err := r.bootstrap(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, seq+1
	cons, err = retrying(ctx, func(ctx context.Context) (jetstream.Consumer, error) { return st.CreateConsumer(ctx, cfg) })
	return cons, &seq, err
}

// rebuildOrder reads the stream up to floor, the entries this node
// applied before it stopped, to learn when each live document was stored
// (the merge order, orderBook): the store does not keep stream times.
func (r *replica) rebuildOrder(ctx context.Context, floor uint64) error {
	if floor == 0 {
		return nil
	}
	cons, err := r.n.js.OrderedConsumer(ctx, streamName(r.shard), jetstream.OrderedConsumerConfig{})
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	for seq := uint64(0); seq < floor; {
		// Ask for no more than remain: a fetch waits for its whole batch.
		batch, err := cons.Fetch(int(min(512, floor-seq)), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		got := 0
		for m := range batch.Messages() {
			got++
			md, err := m.Metadata()
			if err != nil {
				return fmt.Errorf("replay: %w", err)
			}
			if seq = md.Sequence.Stream; seq > floor {
				break
			}
			if e, err := decodeEntry(m.Data()); err == nil {
				r.order.note(e, md.Timestamp.UnixNano())
			}
		}
		if err := batch.Error(); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		if got == 0 {
			break // the rest up to floor was purged (Erase)
		}
	}
	return nil
}

// handle applies one entry, then acknowledges it.
func (r *replica) handle(m jetstream.Msg) {
	md, err := m.Metadata()
	if err != nil {
		r.n.o.Logf("cluster: shard %d: metadata: %v", r.shard, err)
		return
	}
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	r.handled.Add(1)
	e, err := decodeEntry(m.Data())
	if err == nil {
		err = r.applyOpen(e)
	}
	if errors.Is(err, store.ErrClosed) {
		return // shutting down: the entry is redelivered on restart
	}
	if err != nil {
		// Deterministic: every replica meets the same entry on the same
		// store state, and skips it alike.
		r.n.o.Logf("cluster: shard %d: entry %d skipped: %v", r.shard, md.Sequence.Stream, err)
	} else {
		r.mu.Lock()
		r.order.note(e, md.Timestamp.UnixNano())
		r.mu.Unlock()
	}
	if err := m.Ack(); err != nil {
		return // redelivered, and then a no-op
	}
	r.advance(md.Sequence.Stream)
}

func (r *replica) applyOpen(e *entry) error {
	r.life.RLock()
	defer r.life.RUnlock()
	if r.closed {
		return store.ErrClosed
	}
	return r.apply(e)
}

func (r *replica) apply(e *entry) error {
	ctx := store.WithPrincipal(context.Background(), e.Principal)
	switch e.Op {
	case opPut:
		ref, err := r.s.Put(ctx, store.Document{Body: e.Body, Kind: e.Given, Owner: e.Owner, Signals: e.Signals})
		if err == nil && ref.ID.String() != e.ID {
			err = fmt.Errorf("parsed to content id %s, but the writer computed %s", ref.ID, e.ID)
		}
		return err
	case opGrant, opRevoke:
		id, err := canon.ParseContentID(e.ID)
		if err != nil {
			return err
		}
		octx := store.WithPrincipal(ctx, e.Owner)
		if e.Op == opGrant {
			return r.s.Grant(octx, store.Ref{ID: id}, e.Grantee)
		}
		return r.s.Revoke(octx, store.Ref{ID: id}, e.Grantee)
	default:
		id, err := canon.ParseContentID(e.ID)
		if err != nil {
			return err
		}
		err = r.s.Delete(store.WithPrincipal(ctx, e.Owner), store.Ref{ID: id})
		if errors.Is(err, store.ErrNotFound) {
			return nil // applied before a crash, redelivered
		}
		return err
	}
}

func (r *replica) advance(seq uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if seq > r.seq {
		r.seq = seq
		close(r.changed)
		r.changed = make(chan struct{})
	}
}

func (r *replica) applied() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// waitApplied waits until the replica applied seq, at most bound.
func (r *replica) waitApplied(ctx context.Context, seq uint64, bound time.Duration) error {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		r.mu.Lock()
		cur, ch := r.seq, r.changed
		r.mu.Unlock()
		if cur >= seq {
			return nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return fmt.Errorf("%w: shard %d applied %d, the query asked to see %d (waited %v)", ErrNotApplied, r.shard, cur, seq, bound)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (r *replica) close() error {
	if r.sub != nil {
		_ = r.sub.Unsubscribe()
	}
	if r.cc != nil {
		r.cc.Stop()
	}
	r.life.Lock()
	defer r.life.Unlock()
	r.closed = true
	return r.s.Close()
}
