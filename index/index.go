package index

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aqlstore/aqlstore/store"
)

// Version is the index format recorded in an indexed store.
//
// v3: trigram postings only at the configured text paths (Config), and
// instant range keys that hold every fraction digit.
// v4: the rank order ('R' keys, rank.go), and number range keys that
// are exact decimals (AppendDecimalKey) instead of float64 order; both
// ship in the same release, so v4 names both.
// v5: per path and range type, the documents with a value of the type
// ('y') and those with several ('m'), so a range may be read by its
// complement.
const Version = "aqlstore.index.v5"

// Index maintains the postings of one store and answers lookups. It
// implements store.Indexer. The bitmaps lookups return are read-only
// (see the package documentation).
type Index struct {
	r *store.IndexReader

	mu    sync.RWMutex    // guards paths and ids for lookups
	ids   map[Path]uint32 // committed dictionary
	paths map[uint32]Path // committed, by id
	next  uint32          // next path id
	fresh map[Path]uint32 // paths first seen in the running mutation
	drops []uint32        // paths the running sweep step deletes (sweep.go)
	adds  *postingSet     // postings Add and the writer's share of AddExtracted add
	sh    *shards         // path postings AddExtracted adds
	// loading: a load is running (StartLoad to Done), and Extract leaves
	// the range buckets out. Read by Extract on any goroutine.
	loading atomic.Bool
	dels    *postingSet
	ranks   rankKeys // the mutation's rank keys to set or delete
	// runs says a load wrote postings by FlushRun, which forgets them: the
	// cache cannot be brought up by the mutation's delta.
	runs    bool
	rank    rankTree // the committed rank order in memory (rank.go)
	x       extractor
	key     []byte
	cache   bitmapCache     // hot posting lists, updated by every commit's delta
	sortTmp []sortedPosting // sortPostings' scratch, kept for the next Flush
	order   []sortedPosting // Flush's postings in key order, kept for the next
	nums    []uint32        // a posting's numbers as Flush writes them

	cfg      Config       // what Load found, or want
	want     *Config      // the configuration Configure sets; nil keeps the stored one
	cfgDirty bool         // cfg is not stored yet: the next Flush writes it
	text     *textMatcher // which paths get trigram postings

	dict  []pathEntry          // committed paths with their segments decoded, for Paths
	memoM sync.Mutex           // guards memo
	memo  map[string]pathsMemo // Paths answers by pointer text; emptied when the dictionary grows
}

// pathEntry is a committed path, decoded once.
type pathEntry struct {
	id   uint32
	segs []pathSeg
	text string // Path.String, for Suggest
}

// pathsMemo is one answer of Paths.
type pathsMemo struct {
	ids   []uint32
	exact bool
}

// commitPath makes p (id) visible to lookups; the caller holds ix.mu for
// writing, or is Load.
func (ix *Index) commitPath(p Path, id uint32) {
	ix.ids[p], ix.paths[id] = id, p
	segs := p.segments()
	ix.dict = append(ix.dict, pathEntry{id, segs, segString(segs)})
	ix.memoM.Lock()
	ix.memo = nil
	ix.memoM.Unlock()
}

// New returns an Index to pass as store.Options.Indexer.
func New() *Index {
	ix := &Index{ids: map[Path]uint32{}, paths: map[uint32]Path{}, next: 1,
		adds: newPostingSet(), sh: newShards(), dels: newPostingSet(), ranks: rankKeys{}}
	ix.reset()
	return ix
}

func (ix *Index) reset() {
	ix.fresh = map[Path]uint32{}
	ix.drops = ix.drops[:0]
	ix.runs = false
	ix.sh.wait()
	ix.adds.reset()
	ix.sh.reset()
	ix.dels.reset()
	clear(ix.ranks)
}

// Version implements store.Indexer.
func (ix *Index) Version() string { return Version }

// Load implements store.Indexer: it reads the path dictionary, and the
// next path id a sweep persisted (ids of dropped paths are never reused).
func (ix *Index) Load(r *store.IndexReader) error {
	ix.r = r
	ix.rank.reset()
	if err := ix.loadConfig(r); err != nil {
		return err
	}
	next, found, err := r.Get(appendFamily(nil, famNext))
	if err != nil {
		return err
	}
	if found && len(next) != 4 {
		return fmt.Errorf("%w: index key XN (next path id) holds %x, not 4 bytes: run `aqlstore reindex`", store.ErrCorrupt, next)
	}
	if found {
		ix.next = max(ix.next, binary.BigEndian.Uint32(next))
	}
	start := appendFamily(nil, famPath)
	end := appendFamily(nil, famPath+1)
	return r.Scan(start, end, func(key, value []byte) error {
		if len(value) != 4 {
			return fmt.Errorf("index: path dictionary entry %q is corrupt", key)
		}
		id := binary.BigEndian.Uint32(value)
		p := Path(key[2:])
		ix.commitPath(p, id)
		ix.next = max(ix.next, id+1)
		return nil
	})
}

// Add implements store.Indexer.
func (ix *Index) Add(num uint32, doc store.IndexInput) error {
	return ix.postings(num, doc, ix.adds)
}

// Remove implements store.Indexer.
func (ix *Index) Remove(num uint32, doc store.IndexInput) error {
	return ix.postings(num, doc, ix.dels)
}

// postings records num under every key the document has.
func (ix *Index) postings(num uint32, doc store.IndexInput, into *postingSet) error {
	if len(doc.Canonical) == 0 {
		return fmt.Errorf("index: document %d is empty", num)
	}
	var err error
	if ix.key, err = ix.ranks.note(doc, num, into == ix.adds, ix.key); err != nil {
		return err
	}
	set := func(key []byte) { into.add(key, num) }
	set(appendFamily(ix.key[:0], famAll))
	set(append(appendFamily(ix.key[:0], famKind), doc.Kind...))
	set(append(appendFamily(ix.key[:0], famOwner), doc.Owner...))
	ix.x.emit = func(p []byte, fam byte, value []byte) {
		ix.key = append(appendPathKey(ix.key[:0], fam, ix.pathID(p)), value...)
		set(ix.key)
	}
	ix.x.text = func(p []byte) bool { return ix.text.isText(ix.pathID(p), p) }
	ix.x.path = ix.x.path[:0]
	ix.x.walk(doc.JSON())
	return nil
}

// pathID returns p's id, allocating one for a path not seen before.
func (ix *Index) pathID(p []byte) uint32 {
	// The larger map first: a load into a new store finds nearly every
	// path among the fresh ones, a mutation of a grown store among the
	// committed, and a path then costs one lookup, not two.
	first, second := ix.ids, ix.fresh
	if len(ix.fresh) > len(ix.ids) {
		first, second = ix.fresh, ix.ids
	}
	if id, ok := first[Path(p)]; ok {
		return id
	}
	if id, ok := second[Path(p)]; ok {
		return id
	}
	id := ix.next
	ix.next++
	ix.fresh[Path(p)] = id
	return id
}

// loadConfig adopts the stored configuration, or the one Configure
// sets (which finds the index dropped), or the default for an index that
// has none yet; either of the last two is written by the next Flush.
func (ix *Index) loadConfig(r *store.IndexReader) error {
	stored, found, err := loadConfig(r)
	if err != nil {
		return err
	}
	switch {
	case ix.want != nil:
		ix.cfg, ix.cfgDirty = *ix.want, !found || !slices.Equal(stored.TextPaths, ix.want.TextPaths)
	case found:
		ix.cfg = stored
	default:
		ix.cfg, ix.cfgDirty = Config{}, true
	}
	pats, err := ix.cfg.pointers()
	if err != nil {
		return err
	}
	text := newTextMatcher(pats)
	ix.mu.Lock() // Extract reads it outside the writer lock
	ix.text = text
	ix.mu.Unlock()
	return nil
}

// Steady writes: where the ceiling is, and what would lift it.
//
// A mutation writes its postings as one merge operand per posting key,
// in its own synced batch (Flush, flushSorted). Measured with
// BenchmarkIndexedPut and store's BenchmarkIndexedPutEngine (synced
// batches of 1,000 generated manifests, 2 cores, CPU from pprof): a
// batch holds ~37,500 posting keys with ~278,000 postings, and the
// cost follows the key count. Every key is a memtable insert under the
// writer lock (kv.apply, ~0.6-0.8 µs each: the memtable holds the same
// keys from earlier batches, so each insert searches it from the top),
// part of the sort and encoding in flushSorted, ~2 KB of the ~5.4 KB of
// WAL per document, a flush that merges each key's operands of
// ~10 batches, and compactions that rewrite the posting region of the
// base level whenever L0 fills: every batch's keys span the whole
// posting key space, so each L0 compaction overlaps all of it, and the
// bytes compacted per document grow with the store (470 B at 30,000
// documents, 1,600 B at 120,000). At 120,000 documents the CPU per
// document was ~350 µs: compaction 90 (zstd of the base level 32),
// flush 34, the writer's serial path 99, parse and extraction 58,
// posting shards 40, reading new keys before the lock 17. Two cores
// give ~5,700 documents/s at best, and ≥ 15,000/s needs ≤ ~130 µs in
// all: tuning the operand path (merging arrays from their bytes,
// cheaper sorts, reads outside the lock) moves tens of µs, not 220.
//
// What would close it is the bulk path's shape for steady writes: keep
// the postings of recent mutations in memory only (the shards'
// postingSets already hold them per batch; they would be kept across
// batches and read by lookups beside the committed bitmaps, as the
// cache's delta is), and write them every N documents as one sorted run
// of whole posting lists (the Loader's run writer, ingested), with the
// documents' own synced batches as their log: a meta key records the
// last document number whose postings are persisted, and Open re-extracts
// the postings of the documents after it. Per document that removes
// ~38 memtable inserts, ~2 KB of WAL, the operand merges of flush and
// compaction and the base-level rewrites that grow with the store
// (from the profiles: ~50 µs of the writer's path, Flush and most of
// kv.apply, and most of the ~125 µs of flush and compaction at 120,000
// documents), for one sequential run write per N documents. N bounds
// the replay at open (~60 µs of extraction per document: N = 16,384
// replays in ~1 CPU-s). It changes the
// durability argument of every posting (crash tests must kill between
// a run's write and its watermark) and the lookups' read path, so it
// lands whole or not at all.

// Flush implements store.Indexer: the configuration when it is not
// stored yet, new paths, then one merge operand per posting key, in key
// order.
func (ix *Index) Flush(w *store.IndexWriter) error {
	if ix.cfgDirty {
		v, err := json.Marshal(ix.cfg)
		if err != nil {
			return err
		}
		if err := w.Set(appendFamily(nil, famConfig), v); err != nil {
			return err
		}
	}
	for p, id := range ix.fresh {
		idb := binary.BigEndian.AppendUint32(nil, id)
		if err := w.Set(append(appendFamily(nil, famPath), p...), idb); err != nil {
			return err
		}
		if err := w.Set(append(appendFamily(nil, famPathID), idb...), []byte(p)); err != nil {
			return err
		}
	}
	if err := ix.ranks.flush(w, &ix.rank); err != nil {
		return err
	}
	if err := ix.flushSorted(w); err != nil {
		return err
	}
	return ix.dels.flushRemoves(w)
}

// flushSorted writes one "set" operand per posting key the mutation
// added, in key order. Pebble inserts a batch into its memtable in
// batch order and starts each search where the last key went: keys in
// order cost a few steps each, where keys in the order documents brought
// them (tens of thousands in a batch of documents) cost a search of the
// whole memtable each.
func (ix *Index) flushSorted(w *store.IndexWriter) error {
	ix.sh.wait()
	sets := ix.addSets()
	ps := ix.order[:0]
	for si, s := range sets {
		for i := range s.len() {
			k := s.key(i)
			ps = append(ps, sortedPosting{keyPrefix(k, 0), keyPrefix(k, 8), uint32(si), uint32(i)})
		}
	}
	if len(ps) > 0 {
		ix.sortTmp = sortPostings(ps, ix.sortTmp, func(p *sortedPosting) []byte { return sets[p.set].key(int(p.i)) }, 0)
	}
	var err error
	for _, p := range ps {
		// The writer copies the key and the numbers.
		s := sets[p.set]
		ix.nums = s.appendNums(ix.nums[:0], int(p.i))
		if err = w.AddSorted(s.key(int(p.i)), ix.nums); err != nil {
			break
		}
	}
	ix.order = ps[:0]
	return err
}

// sortedPosting is one posting key of a mutation's sets, as flushSorted
// orders them: which set, and which key of it. pre and pre2 are 16
// bytes of the key as two numbers (its first, to begin with), which
// sortPostings sorts by; it reads the keys only where they tie. It
// holds no pointer, so the sort moves 24 bytes without write barriers.
type sortedPosting struct {
	pre, pre2 uint64
	set, i    uint32
}

// keyPrefix returns the 8 bytes of k from byte from, big-endian, zeros
// past its end: keys that share their bytes before from and whose
// prefixes differ compare as their prefixes do.
func keyPrefix(k []byte, from int) uint64 {
	var b [8]byte
	if len(k) > from {
		copy(b[:], k[from:])
	}
	return binary.BigEndian.Uint64(b[:])
}

// Done implements store.Indexer: committed paths become visible to
// lookups, and paths a committed sweep step dropped leave them; an
// aborted mutation's paths and ids are forgotten.
func (ix *Index) Done(committed bool) {
	ix.rank.done(committed)
	ix.sh.wait()   // the sets are whole, and skip may change
	ix.sh.skip = 0 // a load's end
	ix.loading.Store(false)
	if committed {
		ix.cfgDirty = false
		// A sweep deletes keys outside the delta, and a load's runs are
		// forgotten once written: either empties the cache.
		ix.cache.commit(delta{ix.addSets(), ix.dels}, len(ix.drops) == 0 && !ix.runs)
		ix.mu.Lock()
		for p, id := range ix.fresh {
			ix.commitPath(p, id)
		}
		ix.forgetDropped()
		ix.mu.Unlock()
	} else {
		for _, id := range ix.fresh {
			ix.next = min(ix.next, id)
		}
	}
	ix.reset()
}
