package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// Store is an open aqlstore database. It is safe for concurrent use: reads
// run in parallel; mutations are serialized and share fsyncs.
type Store struct {
	dir  string
	opts Options
	kv   *kv

	mu      sync.Mutex // serializes mutations; guards the fields below
	nextNum uint32
	head    chainHead
	closed  bool
	changed chan struct{} // closed and replaced when the head moves (watch.go)

	grants grantCache // each reader's granted documents (grant.go)
	hot    hotDocs    // the documents small fetches read, until the next write (hotdocs.go)

	cols      atomic.Pointer[Columns] // as of the last commit (columns.go)
	colTables columnTables            // the writer's kind and owner tables; guarded by mu
	pub       sync.RWMutex            // held by a commit while it applies and publishes the columns

	load    atomic.Pointer[Loader] // the open load, which holds mu until it ends
	closing atomic.Bool            // raised by Close before it aborts the open load
}

// Open opens the store in dir, creating it if it does not exist: in a new
// or empty directory only, for a directory that holds other files and no
// store is ErrInvalid (checkNewDir). opts may be nil for the defaults.
// Opening never re-reads documents.
func Open(dir string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.EnsureDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.ReadOnly {
		if ok, err := exists(dir, o.FS); err != nil || !ok {
			return nil, noStore(dir, err)
		}
	} else if o.FS == nil {
		if err := checkNewDir(dir); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("store: create %s: %w", dir, err)
		}
	}
	k, err := openKV(dir, &o)
	if err != nil {
		if le := lockedError(dir, err); le != err {
			return nil, le
		}
		return nil, fmt.Errorf("store: %w", err)
	}
	s := &Store{dir: dir, opts: o, kv: k, changed: make(chan struct{})}
	if !o.ReadOnly {
		if err := removeLoadTemp(k.fs(), dir); err != nil { // what a killed load left
			_ = k.close()
			return nil, err
		}
	}
	if err := s.loadMeta(); err != nil {
		_ = k.close()
		return nil, err
	}
	if err := s.loadColumns(); err != nil {
		_ = k.close()
		return nil, err
	}
	if err := s.checkIndexer(); err != nil {
		_ = k.close()
		return nil, err
	}
	return s, nil
}

// loadMeta reads the format version, next number and chain head, writing
// them on a new store.
func (s *Store) loadMeta() error {
	v, found, err := s.kv.get(metaFormat, nil)
	if err != nil {
		return fmt.Errorf("store: read format: %w", err)
	}
	if !found && s.opts.ReadOnly {
		return noStore(s.dir, nil)
	}
	if !found {
		return s.initMeta()
	}
	if err := checkFormat(s.dir, v); err != nil {
		return err
	}
	if v, _, err = s.kv.get(metaNextNum, nil); err != nil || len(v) != 4 {
		return fmt.Errorf("%w: next document number (%v)", ErrCorrupt, err)
	}
	s.nextNum = binary.BigEndian.Uint32(v)
	if v, _, err = s.kv.get(metaChainHead, nil); err != nil {
		return fmt.Errorf("store: read chain head: %w", err)
	}
	s.head, err = decodeChainHead(v)
	return err
}

// checkFormat refuses a store written in another format. There is no
// in-place upgrade: a store moves between formats by export and import.
func checkFormat(dir string, v []byte) error {
	ver, _ := binary.Uvarint(v)
	switch {
	case ver == formatVersion:
		return nil
	case ver == 1:
		return fmt.Errorf("store: %s has format 1 (blobs keyed by content id); this build reads only format %d "+
			"(bodies inline in document records). To move it: with the aqlstore build that wrote it, export each "+
			"tenant (GET /storage/export), then import the exports into a new store with this build "+
			"(POST /storage/import)", dir, formatVersion)
	case ver == 2:
		return fmt.Errorf("store: %s has format 2 (every body in a blob of its own); this build reads only format %d "+
			"(bodies inline in document records). To move it: with the aqlstore build that wrote it, export each "+
			"tenant (aqlstore export --as TENANT, or GET /storage/export), then import the exports into a new store "+
			"with this build (aqlstore import, or POST /storage/import)", dir, formatVersion)
	}
	return fmt.Errorf("store: %s has format %d; this build reads format %d", dir, ver, formatVersion)
}

func (s *Store) initMeta() error {
	b := s.kv.newBatch()
	s.nextNum = 1 // 0 is never a document: a zero Ref.Num means "unset"
	_ = b.set(metaFormat, binary.AppendUvarint(nil, formatVersion))
	_ = b.set(metaNextNum, binary.BigEndian.AppendUint32(nil, s.nextNum))
	_ = b.set(metaChainHead, s.head.append(nil))
	if err := s.kv.apply(b, true); err != nil {
		b.close()
		return fmt.Errorf("store: init: %w", err)
	}
	return b.wait()
}

// noStore is the error of a read-only open of a directory without a
// store; err, when set, is why that could not be told.
func noStore(dir string, err error) error {
	if err != nil {
		return fmt.Errorf("%w at %s: %v", ErrNoStore, dir, err)
	}
	return fmt.Errorf("%w at %s", ErrNoStore, dir)
}

// Dir returns the directory the store lives in.
func (s *Store) Dir() string { return s.dir }

// Close closes the store. Mutations in flight finish first; an open
// Loader, which holds the writer lock until its owner ends it, is
// aborted instead of waited for (a deferred Close after a failed Add
// waited forever): nothing of it is stored, and Close says so with an
// error wrapping ErrLoadAborted once the store is closed.
func (s *Store) Close() error {
	s.closing.Store(true)
	var aborted error
	if l := s.load.Load(); l != nil && l.abortOnClose() {
		aborted = fmt.Errorf("store: close: %w: nothing of it is stored (Commit a load before Close)", ErrLoadAborted)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return aborted
	}
	s.closed = true
	if err := s.kv.close(); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return aborted
}

type principalKey struct{}

// WithPrincipal returns a context whose reads and writes act as did (a
// tenant). Without one, a context acts as Public: it sees public documents
// only and writes public documents.
func WithPrincipal(ctx context.Context, did string) context.Context {
	return context.WithValue(ctx, principalKey{}, did)
}

// Principal returns the principal a context acts as.
func Principal(ctx context.Context) string {
	if p, ok := ctx.Value(principalKey{}).(string); ok && p != "" {
		return p
	}
	return Public
}

// visible reports whether principal may read every document owned by
// owner; a document of another tenant may still be granted to it (sees,
// grant.go).
func visible(principal, owner string) bool { return owner == Public || owner == principal }

// checkOwner refuses owners that would break the key layout.
func checkOwner(owner string) error {
	if len(owner) > 512 {
		return fmt.Errorf("%w: owner is %d bytes, over 512", ErrInvalid, len(owner))
	}
	for i := 0; i < len(owner); i++ {
		if owner[i] == 0 {
			return fmt.Errorf("%w: owner %q contains a NUL byte", ErrInvalid, owner)
		}
	}
	return nil
}

func (s *Store) checkOpen() error {
	if s.closed {
		return ErrClosed
	}
	return nil
}
