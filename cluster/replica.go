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
// acknowledged after the store commit holding it is durable, so a crash
// between the commit and the acks redelivers entries already applied,
// which are then no-ops: a put of content the owner already stores
// returns the stored document, a delete of a document that is gone is
// ErrNotFound (applyMsgs keeps the redeliveries in stream order). No
// sequence needs to be written into the store's own commit for that.
type replica struct {
	n      *Node
	shard  int
	s      *store.Store
	ix     *index.Index
	signer *sign.Signer // signs the shard-local response, which the node re-signs
	cc     jetstream.ConsumeContext
	sub    *nats.Subscription
	slots  chan struct{} // requests answered at once (serve)

	inbox chan jetstream.Msg // delivered entries, to applyLoop
	stop  chan struct{}      // closed to stop applyLoop
	done  chan struct{}      // closed when applyLoop returned

	// applyMu is held while entries are applied and while an export
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
		slots: make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		inbox: make(chan jetstream.Msg, applyBatch), stop: make(chan struct{}), done: make(chan struct{})}
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
	go r.applyLoop()
	if r.cc, err = cons.Consume(r.receive); err != nil {
		close(r.stop)
		return fmt.Errorf("consume: %w", err)
	}
	if r.sub, err = r.n.nc.QueueSubscribe(requestSubject(r.shard), queueGroup(r.shard), r.serve); err != nil {
		r.cc.Stop()
		close(r.stop)
		<-r.done
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
		MaxAckPending: 4 * applyBatch, DeliverPolicy: jetstream.DeliverAllPolicy, AckWait: 30 * time.Second}
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

// applyBatch is the most entries one store commit holds.
const applyBatch = 512

// receive hands a delivered entry to the applier (applyLoop).
func (r *replica) receive(m jetstream.Msg) {
	select {
	case r.inbox <- m:
	case <-r.stop:
	}
}

// applyLoop applies what the stream delivered: the entries waiting when
// it looks, up to applyBatch, in one go (applyMsgs).
func (r *replica) applyLoop() {
	defer close(r.done)
	batch := make([]jetstream.Msg, 0, applyBatch)
	for {
		select {
		case m := <-r.inbox:
			batch = append(batch[:0], m)
		case <-r.stop:
			return
		}
	more:
		for len(batch) < applyBatch {
			select {
			case m := <-r.inbox:
				batch = append(batch, m)
			default:
				break more
			}
		}
		r.applyMsgs(batch)
	}
}

// pending is one stream entry on its way into the store: delivered (m),
// or read from the stream to fill a gap in the deliveries (m nil).
type pending struct {
	m    jetstream.Msg
	seq  uint64
	at   int64 // stream time, Unix ns
	e    *entry
	err  error // the entry does not decode, or the store refused it
	skip bool  // already applied: acknowledged only
}

// applyMsgs applies delivered entries in stream order, then acknowledges
// them: puts in runs of one store commit each (split where an entry needs
// a commit of its own: a delete, a grant, a revoke, or another writer),
// so an entry is acknowledged only once the commit holding it is durable.
//
// Deliveries come in stream order but for redeliveries: an entry a
// crashed node left unacknowledged is redelivered after the ack wait,
// possibly after later ones. So the replica keeps its own applied
// sequence: an entry at or below it is acknowledged and dropped, and an
// entry past a gap first has the gap read from the stream (what is not
// there was purged).
func (r *replica) applyMsgs(msgs []jetstream.Msg) {
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	next := r.applied() + 1
	var todo []pending
	for _, m := range msgs {
		md, err := m.Metadata()
		if err != nil {
			r.n.o.Logf("cluster: shard %d: metadata: %v", r.shard, err)
			continue
		}
		seq := md.Sequence.Stream
		if seq < next {
			todo = append(todo, pending{m: m, seq: seq, skip: true})
			continue
		}
		if seq > next {
			gap, err := r.readGap(next, seq)
			if err != nil {
				r.n.o.Logf("cluster: shard %d: entries %d to %d: %v", r.shard, next, seq-1, err)
				break // the rest is redelivered, and the gap read again
			}
			todo = append(todo, gap...)
		}
		p := pending{m: m, seq: seq, at: md.Timestamp.UnixNano()}
		p.e, p.err = decodeEntry(m.Data())
		todo = append(todo, p)
		next = seq + 1
	}
	if err := r.applyPending(todo); err != nil {
		if !errors.Is(err, store.ErrClosed) {
			r.n.o.Logf("cluster: shard %d: entries %d to %d not applied, to be redelivered: %v", r.shard, todo[0].seq, todo[len(todo)-1].seq, err)
		}
		return // (or shutting down) the entries are redelivered
	}
	last := uint64(0)
	for i := range todo {
		p := &todo[i]
		if p.skip {
			if p.m != nil {
				_ = p.m.Ack()
			}
			continue
		}
		r.handled.Add(1)
		if p.err != nil {
			// Deterministic: every replica meets the same entry on the
			// same store state, and skips it alike.
			r.n.o.Logf("cluster: shard %d: entry %d skipped: %v", r.shard, p.seq, p.err)
		} else {
			r.mu.Lock()
			r.order.note(p.e, p.at)
			r.mu.Unlock()
		}
		if p.m != nil {
			_ = p.m.Ack() // when lost: redelivered, and dropped as applied
		}
		last = p.seq
	}
	r.advance(last)
}

// readGap reads the stream's entries from seq to before to, those a
// purge left.
func (r *replica) readGap(from, to uint64) ([]pending, error) {
	ctx, cancel := context.WithTimeout(context.Background(), r.n.o.RequestTimeout)
	defer cancel()
	st, err := r.n.stream(ctx, r.shard)
	if err != nil {
		return nil, err
	}
	var out []pending
	for seq := from; seq < to; seq++ {
		raw, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		p := pending{seq: seq, at: raw.Time.UnixNano()}
		p.e, p.err = decodeEntry(raw.Data)
		out = append(out, p)
	}
	return out, nil
}

// applyPending applies todo's entries in order, setting err on each the
// store refused. It stops at a closed store.
func (r *replica) applyPending(todo []pending) error {
	r.life.RLock()
	defer r.life.RUnlock()
	if r.closed {
		return store.ErrClosed
	}
	for i := 0; i < len(todo); {
		p := &todo[i]
		if p.skip || p.err != nil {
			i++
			continue
		}
		if p.e.Op != opPut {
			p.err = r.apply(p.e)
			if errors.Is(p.err, store.ErrClosed) {
				return p.err
			}
			i++
			continue
		}
		j := i + 1
		for j < len(todo) && (todo[j].skip || todo[j].err == nil && todo[j].e.Op == opPut && todo[j].e.Principal == p.e.Principal) {
			j++
		}
		if err := r.putRun(todo[i:j]); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// putRun stores a run of puts of one writer in one commit. A put the
// store refuses fails the whole commit, so the puts before it are
// committed on their own, it is marked refused, and the rest are tried
// again: the outcome of each is that of putting them one by one.
func (r *replica) putRun(run []pending) error {
	var idx []int
	var docs []store.Document
	for k := range run {
		if e := run[k].e; !run[k].skip && run[k].err == nil {
			idx = append(idx, k)
			docs = append(docs, store.Document{Body: e.Body, Kind: e.Given, Owner: e.Owner, Signals: e.Signals})
		}
	}
	if len(docs) == 0 {
		return nil
	}
	ctx := store.WithPrincipal(context.Background(), run[idx[0]].e.Principal)
	refs, err := r.s.PutBatch(ctx, docs)
	var be *store.BatchError
	switch {
	case errors.As(err, &be):
		if errors.Is(be.Err, store.ErrClosed) {
			return be.Err
		}
		run[idx[be.Index]].err = be.Err
		return r.putRun(run) // the refused one is skipped now
	case err != nil:
		return err // the store failed, not the entry: it is redelivered
	}
	for k, ref := range refs {
		if p := &run[idx[k]]; ref.ID.String() != p.e.ID {
			p.err = fmt.Errorf("parsed to content id %s, but the writer computed %s", ref.ID, p.e.ID)
		}
	}
	return nil
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
		close(r.stop)
		<-r.done
	}
	r.life.Lock()
	defer r.life.Unlock()
	r.closed = true
	return r.s.Close()
}
