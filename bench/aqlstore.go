package bench

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// aqlstoreBackend is an aqlstore database in dir with its path indexes.
// Its engines are the planner and the full scan over the same store.
type aqlstoreBackend struct {
	dir    string
	s      *store.Store
	ix     *index.Index
	signer *sign.Signer
	at     time.Time
}

// cacheBytes is the block or page cache every engine gets: Pebble's block
// cache here, SQLite's page cache, PostgreSQL's shared_buffers.
const cacheBytes = 256 << 20

func newAqlstore(dir string) (*aqlstoreBackend, error) {
	s, ix, err := index.Open(dir, &store.Options{CacheSize: cacheBytes})
	if err != nil {
		return nil, err
	}
	seed := sha256.Sum256([]byte("aqlstore bench signer"))
	return &aqlstoreBackend{dir: dir, s: s, ix: ix,
		signer: sign.NewSigner(ed25519.NewKeyFromSeed(seed[:])),
		at:     time.Date(2026, 5, 15, 0, 0, 0, 0, time.UTC)}, nil
}

func (b *aqlstoreBackend) Name() string    { return "aqlstore" }
func (b *aqlstoreBackend) Version() string { return "aqlstore " + moduleVersion() }

// Load stores the corpus as `aqlstore put` does: a store.Loader, fed
// batch documents at a time prepared on every core while the batch
// before is added (prepare and add overlap, as in put's pipeline),
// ingested in one step.
func (b *aqlstoreBackend) Load(ctx context.Context, src *Source, batch int, progress func(int)) (LoadStats, error) {
	start := time.Now()
	l, err := b.s.NewLoader(ctx, nil)
	if err != nil {
		return LoadStats{}, err
	}
	defer l.Abort()
	type prepared struct {
		docs []*store.Prepared
		done int // documents of the corpus up to the batch's last
		err  error
	}
	ready := make(chan prepared, 1) // one batch prepared ahead of the one added
	stop := make(chan struct{})
	defer func() { // the preparing goroutine ends before Load returns
		close(stop)
		for range ready {
		}
	}()
	go func() {
		defer close(ready)
		docs := make([]store.Document, 0, batch)
		send := func(done int) error {
			prep, err := b.s.PrepareAll(ctx, docs)
			if err != nil {
				return err // sent once, below
			}
			docs = make([]store.Document, 0, batch)
			select {
			case ready <- prepared{docs: prep, done: done}:
				return nil
			case <-stop:
				return context.Canceled
			}
		}
		err := src.Each(ctx, func(i int, _ string, body []byte) error {
			docs = append(docs, store.Document{Body: append([]byte(nil), body...), Kind: canon.KindManifest})
			if len(docs) == batch {
				return send(i + 1)
			}
			return nil
		})
		if err == nil && len(docs) > 0 {
			err = send(src.N)
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			select {
			case ready <- prepared{err: err}:
			case <-stop:
			}
		}
	}()
	for p := range ready {
		if p.err != nil {
			return LoadStats{}, p.err
		}
		for i, pd := range p.docs {
			if _, err := l.Add(pd); err != nil {
				return LoadStats{}, fmt.Errorf("document %d: %w", p.done-len(p.docs)+i+1, err)
			}
		}
		progress(p.done)
	}
	if err := ctx.Err(); err != nil {
		return LoadStats{}, err
	}
	err = l.Commit()
	return LoadStats{Load: time.Since(start)}, err
}

func (b *aqlstoreBackend) Engines() []Engine {
	return []Engine{
		&aqlstoreEngine{b: b, name: EngineAqlstore, planner: true},
		&aqlstoreEngine{b: b, name: EngineAqlstoreScan},
	}
}

func (b *aqlstoreBackend) DiskBytes() (int64, error) {
	if _, err := b.s.DiskUsage(); err != nil { // flushes the memtable
		return 0, err
	}
	return dirBytes(b.dir)
}

func (b *aqlstoreBackend) Reopen(context.Context) (time.Duration, error) {
	if err := b.s.Close(); err != nil {
		return 0, err
	}
	start := time.Now()
	s, ix, err := index.Open(b.dir, &store.Options{CacheSize: cacheBytes})
	if err != nil {
		return 0, err
	}
	b.s, b.ix = s, ix
	return time.Since(start), nil
}

func (b *aqlstoreBackend) PeakRSS() int64 { return 0 }
func (b *aqlstoreBackend) Close() error   { return b.s.Close() }

// PhysicalScan reads every stored manifest, through the same walk of
// records and bodies in document order that a full-scan query takes,
// without evaluating anything: the floor under any full scan of this
// store.
func (b *aqlstoreBackend) PhysicalScan(ctx context.Context) (time.Duration, int, error) {
	start := time.Now()
	n := 0
	for _, err := range b.s.ScanKinds(ctx, []canon.Kind{canon.KindManifest}) {
		if err != nil {
			return 0, 0, err
		}
		n++
	}
	return time.Since(start), n, nil
}

type aqlstoreEngine struct {
	b       *aqlstoreBackend
	name    string
	planner bool
}

func (e *aqlstoreEngine) Name() string { return e.name }

func (e *aqlstoreEngine) Indexes() string {
	if e.planner {
		return "every path: equality, existence and range postings, a rank order (roaring bitmaps); no text paths, so no trigrams"
	}
	return "none used: every manifest is read and evaluated"
}

// Query resolves w as a signed full_set discovery intent, the way the
// server answers one: decision records, projection and signature
// included. Rejected candidates are not listed.
func (e *aqlstoreEngine) Query(ctx context.Context, w *Workload) ([]string, error) {
	in, err := e.b.intent(w)
	if err != nil {
		return nil, err
	}
	o := &query.Options{Signer: e.b.signer, At: e.b.at, PageSize: 1 << 30, MaxRejected: -1}
	if w.PageSize > 0 {
		o.PageSize = w.PageSize
	}
	if e.planner {
		o.Index = e.b.ix
	}
	var ids []string
	for {
		resp, err := query.Resolve(ctx, e.b.s, in, o)
		if err != nil {
			return nil, err
		}
		for _, c := range resp.Candidates {
			ids = append(ids, c.CandidateID)
		}
		if resp.NextCursor == "" || w.FirstPage {
			return ids, nil
		}
		o.Cursor = resp.NextCursor
	}
}

func (b *aqlstoreBackend) intent(w *Workload) (*aql.Intent, error) {
	include := w.Include
	if include == nil {
		include = []string{"/tool/id"}
	}
	inc, _ := json.Marshal(include)
	src := fmt.Sprintf(`{"intent_id":"urn:oap:intent:bench:%s","issuer_did":"did:web:bench.example","category":"discovery",
		"constraints":%s,"projection":{"include":%s},
		"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},"resolution_policy":"full_set",
		"signature":{"alg":"EdDSA","value":"x"}}`, w.Name, w.Constraints, inc)
	in, err := aql.Parse([]byte(src), nil)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", w.Name, err)
	}
	return in, nil
}
