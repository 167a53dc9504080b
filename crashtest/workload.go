package crashtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/store"
)

// Tenants are the owners the workload writes as (imports add owners of
// their own).
var Tenants = []string{store.Public, "did:web:tenant-a.example", "did:web:tenant-b.example", "did:web:tenant-c.example"}

// keyStride separates the document indexes of the writers of one run;
// CycleStride separates runs, so that no two mutations of a test ever put
// the same natural key by accident.
const (
	keyStride   = 1_000_000
	CycleStride = 10 * keyStride
	maxWriters  = 9
)

// maxImport bounds the documents one import copies, so that the store
// stays small.
const maxImport = 1500

// Config describes one run of the workload.
type Config struct {
	Seed    uint64 `json:"seed"`
	KeyBase int    `json:"key_base"` // the first document index of the run; a multiple of CycleStride
	Writers int    `json:"writers"`  // 1 to 9 concurrent writers
	Readers int    `json:"readers"`  // concurrent query goroutines
	Live    []Doc  `json:"live"`     // documents stored before the run, which the writers may delete
}

// StoreOptions are the options the workload and the checks open a store
// with: a small memtable, so that flushes and compactions happen inside
// the kill window, and a small cache, since several processes run at once.
func StoreOptions() *store.Options {
	return &store.Options{MemTableSize: 1 << 20, CacheSize: 8 << 20}
}

// Run runs the workload on s (with its index ix) until ctx is done or a
// mutation or query fails, announcing every mutation on log. It returns
// the first failure, or the cause of ctx's end. Any failure is a finding:
// the workload never asks for what the store may refuse.
func Run(ctx context.Context, s *store.Store, ix *index.Index, cfg Config, log Log) error {
	if cfg.Writers < 1 || cfg.Writers > maxWriters {
		return fmt.Errorf("crashtest: %d writers: want 1 to %d", cfg.Writers, maxWriters)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg  sync.WaitGroup
		ops atomic.Int64
	)
	fail := func(err error) {
		if err != nil && ctx.Err() == nil {
			cancel(err)
		}
	}
	for r := range cfg.Readers {
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(100+r)))
		wg.Go(func() { fail(readLoop(ctx, s, ix, rng)) })
	}
	for i := range cfg.Writers {
		w := &writer{id: i, s: s, log: log, ops: &ops, bodies: map[Doc][]byte{}, mids: map[string][]string{}}
		w.rng = rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
		w.g = gen{rng: w.rng, next: cfg.KeyBase + i*keyStride}
		for j, d := range cfg.Live {
			if j%cfg.Writers == i { // disjoint shares: two writers never delete one document
				w.pool = append(w.pool, d)
			}
		}
		wg.Go(func() { fail(w.loop(ctx)) })
	}
	wg.Wait()
	return context.Cause(ctx)
}

// readLoop resolves random intents, through the planner or by full scan,
// while the writers write.
func readLoop(ctx context.Context, s *store.Store, ix *index.Index, rng *rand.Rand) error {
	for ctx.Err() == nil {
		q := randomQuery(rng, Tenants)
		in, err := q.intent()
		if err != nil {
			return err
		}
		o := &query.Options{Signer: signer, At: queryAt, Kinds: q.Kinds, Principal: q.Principal,
			PageSize: q.PageSize, MaxRejected: 10}
		if rng.IntN(2) == 0 {
			o.Index = ix
		}
		if _, err := query.Resolve(ctx, s, in, o); err != nil && ctx.Err() == nil {
			return fmt.Errorf("crashtest: concurrent query %s (index %t): %w", q, o.Index != nil, err)
		}
	}
	return nil
}

// writer is one writing goroutine and what it remembers of its writes.
type writer struct {
	id     int
	s      *store.Store
	log    Log
	ops    *atomic.Int64
	rng    *rand.Rand
	g      gen
	pool   []Doc               // live documents it may delete
	bodies map[Doc][]byte      // bodies of the documents it put, for re-puts
	gone   []Doc               // documents it deleted whose body it has
	envs   []Doc               // live envelopes it put, for observations
	mids   map[string][]string // per owner, the @mids it put, for replies
}

// opWeights are the relative frequencies of the mutations.
var opWeights = []struct {
	what   string
	weight int
}{
	{"put", 22}, {"batch", 16}, {"bulk", 2}, {"load", 3}, {"delete", 26}, {"reput", 5},
	{"pairl", 10}, {"aidp", 8}, {"observe", 6}, {"import", 2},
}

func (w *writer) loop(ctx context.Context) error {
	total := 0
	for _, o := range opWeights {
		total += o.weight
	}
	for ctx.Err() == nil {
		n := w.rng.IntN(total)
		what := ""
		for _, o := range opWeights {
			if n -= o.weight; n < 0 {
				what = o.what
				break
			}
		}
		if err := w.do(ctx, what); err != nil {
			return fmt.Errorf("crashtest: writer %d: %w", w.id, err)
		}
	}
	return nil
}

func (w *writer) owner() string { return Tenants[w.rng.IntN(len(Tenants))] }

func (w *writer) do(ctx context.Context, what string) error {
	switch what {
	case "put":
		return w.put(ctx, what, w.owner(), w.g.json())
	case "batch", "bulk", "load":
		n := 2 + w.rng.IntN(20)
		switch what {
		case "bulk":
			n = 100 + w.rng.IntN(200)
		case "load": // a store.Loader, in runs small enough that several spill
			n = 200 + w.rng.IntN(800)
		}
		bodies := make([][]byte, n)
		for i := range bodies {
			bodies[i] = w.g.json()
		}
		return w.put(ctx, what, w.owner(), bodies...)
	case "delete":
		return w.delete(ctx)
	case "reput":
		if len(w.gone) == 0 {
			return nil
		}
		i := w.rng.IntN(len(w.gone))
		d := w.gone[i]
		w.gone = slices.Delete(w.gone, i, i+1)
		// An observation's envelope may have been deleted since: the
		// re-put is quarantined then, as Put documents.
		return w.put(ctx, what, d.Owner, w.bodies[d])
	case "pairl":
		owner, parent := w.owner(), ""
		if mids := w.mids[owner]; len(mids) > 0 && w.rng.IntN(2) == 0 {
			parent = mids[w.rng.IntN(len(mids))]
		}
		mid, body := w.g.pairl(parent)
		if err := w.put(ctx, what, owner, body); err != nil {
			return err
		}
		w.mids[owner] = append(w.mids[owner], mid)
		return nil
	case "aidp":
		owner := w.owner()
		env, body := w.g.envelope()
		bodies := [][]byte{body}
		if w.rng.IntN(2) == 0 { // the envelope and an observation in one batch
			bodies = append(bodies, w.g.observation(env))
		}
		return w.put(ctx, what, owner, bodies...)
	case "observe":
		if len(w.envs) == 0 {
			return nil
		}
		env := w.envs[w.rng.IntN(len(w.envs))]
		return w.put(ctx, what, env.Owner, w.g.observation(env.Key))
	case "import":
		if w.id != 0 { // one importer keeps the store small
			return nil
		}
		return w.importTenant(ctx)
	}
	return fmt.Errorf("unknown operation %q", what)
}

// begin announces a mutation and returns its number.
func (w *writer) begin(what string, puts, dels []Doc) (Event, error) {
	e := Event{Ev: EvBegin, Op: int(w.ops.Add(1)), What: what, Writer: w.id, Puts: puts, Dels: dels}
	return e, w.log.Emit(e)
}

func (w *writer) ack(e Event) error { return w.log.Emit(Event{Ev: EvAck, Op: e.Op}) }

// put stores bodies under owner in one PutBatch.
func (w *writer) put(ctx context.Context, what, owner string, bodies ...[]byte) error {
	docs := make([]store.Document, len(bodies))
	refs := make([]Doc, len(bodies))
	for i, b := range bodies {
		p, err := w.s.Parse(b, "")
		if err != nil {
			return fmt.Errorf("%s: generated document %d does not parse: %w", what, i, err)
		}
		docs[i] = store.Document{Parsed: p, Owner: owner}
		if what == "reput" {
			docs[i].Unbound = store.QuarantineUnbound
		}
		refs[i] = Doc{Owner: owner, Kind: p.Kind, Key: p.NaturalKey, ID: p.ID().String()}
	}
	e, err := w.begin(what, refs, nil)
	if err != nil {
		return err
	}
	if what == "load" {
		err = w.load(store.WithPrincipal(ctx, owner), docs)
	} else {
		_, err = w.s.PutBatch(store.WithPrincipal(ctx, owner), docs)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", &e, err)
	}
	if err := w.ack(e); err != nil {
		return err
	}
	for i, d := range refs {
		w.bodies[d] = bodies[i]
		w.pool = append(w.pool, d)
		if d.Kind == canon.KindAIDPEnvelope {
			w.envs = append(w.envs, d)
		}
	}
	return nil
}

// load stores docs through a store.Loader, whose runs spill every 50 to
// 250 documents: a kill lands before, during or after the spills, the
// merge into sstables or the ingest.
func (w *writer) load(ctx context.Context, docs []store.Document) error {
	l, err := w.s.NewLoader(ctx, &store.LoadOptions{RunDocs: 50 + w.rng.IntN(200)})
	if err != nil {
		return err
	}
	defer l.Abort()
	for i, d := range docs {
		pd, err := w.s.Prepare(ctx, d)
		if err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
		if _, err := l.Add(pd); err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
	}
	return l.Commit()
}

// delete deletes one document of the writer's pool.
func (w *writer) delete(ctx context.Context) error {
	if len(w.pool) == 0 {
		return nil
	}
	i := w.rng.IntN(len(w.pool))
	d := w.pool[i]
	w.pool[i] = w.pool[len(w.pool)-1]
	w.pool = w.pool[:len(w.pool)-1]
	id, err := canon.ParseContentID(d.ID)
	if err != nil {
		return fmt.Errorf("delete %s: %w", d, err)
	}
	e, err := w.begin("delete", nil, []Doc{d})
	if err != nil {
		return err
	}
	if err := w.s.Delete(store.WithPrincipal(ctx, d.Owner), store.Ref{ID: id, Owner: d.Owner}); err != nil {
		return fmt.Errorf("%s: %s: %w", &e, d, err)
	}
	if err := w.ack(e); err != nil {
		return err
	}
	if _, ok := w.bodies[d]; ok {
		w.gone = append(w.gone, d)
	}
	w.envs = slices.DeleteFunc(w.envs, func(x Doc) bool { return x == d })
	return nil
}

// importTenant exports one tenant and imports the export under a new
// owner. Export is a read: when writers keep it from finishing (ErrBusy)
// there is nothing to import, and nothing was announced.
func (w *writer) importTenant(ctx context.Context) error {
	e, err := w.s.Export(ctx, w.owner())
	if errors.Is(err, store.ErrBusy) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if len(e.Documents) == 0 || len(e.Documents) > maxImport {
		return nil
	}
	owner := fmt.Sprintf("did:web:import-%d.example", w.g.index())
	refs := make([]Doc, len(e.Documents))
	h := sha256.New()
	for i, d := range e.Documents {
		refs[i] = Doc{Owner: owner, Kind: d.Kind, Key: d.NaturalKey, ID: d.ID.String()}
		h.Write(d.ID[:])
	}
	ev, err := w.begin("import", refs, nil)
	if err != nil {
		return err
	}
	mig := store.Migration{ExportDigest: hex.EncodeToString(h.Sum(nil))}
	if _, err := w.s.Import(store.WithPrincipal(ctx, owner), e, owner, mig); err != nil {
		return fmt.Errorf("%s: import of %s: %w", &ev, e.Owner, err)
	}
	if err := w.ack(ev); err != nil {
		return err
	}
	w.pool = append(w.pool, refs...)
	return nil
}
