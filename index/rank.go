package index

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/google/btree"
)

// The rank order. Every document has one 'R' key, written and deleted in
// the batch that puts or deletes it, whose byte order is the order a
// resolver ranks candidates in: score descending (exact decimals; a
// document without a score after every scored one), then candidate id
// ascending, then document number. A page is then a walk of these keys
// that keeps the accepted documents and stops once the page is full,
// instead of reading and sorting every candidate.
//
//	X R 0x01 ^decimal(score) id-escaped 0x00 0x01 num    scored
//	X R 0x02                 id-escaped 0x00 0x01 num    no score
//
// decimal is AppendDecimalKey's, inverted (descending); the candidate id
// has each 0x00 written 0x00 0xff, so the 0x00 0x01 terminator sorts a
// shorter id before every longer one it prefixes; num is 4 bytes
// big-endian. The value is rankValue.
const (
	rankScored   = 0x01
	rankUnscored = 0x02
)

// rankValue is the value of every rank key: a plain key's value may not
// read as an empty posting list (store.IndexWriter.Set).
var rankValue = []byte{'r'}

// AppendRankKey appends the rank key of document num, with score ("" for
// none) and candidate id, to dst. A score that is not a number is an
// error.
func AppendRankKey(dst []byte, score canon.Number, id string, num uint32) ([]byte, error) {
	dst = appendFamily(dst, famRank)
	if score == "" {
		dst = append(dst, rankUnscored)
	} else {
		dst = append(dst, rankScored)
		start := len(dst)
		var err error
		if dst, err = AppendNumberKey(dst, string(score)); err != nil {
			return dst, err
		}
		invert(dst[start:])
	}
	for {
		i := strings.IndexByte(id, 0)
		if i < 0 {
			break
		}
		dst = append(append(dst, id[:i]...), 0x00, 0xff)
		id = id[i+1:]
	}
	dst = append(append(dst, id...), 0x00, 0x01)
	return binary.BigEndian.AppendUint32(dst, num), nil
}

// rankNum reads the document number at the end of a rank key.
func rankNum[K ~string | ~[]byte](key K) (uint32, bool) {
	if len(key) < 2+1+2+4 || key[0] != store.IndexPrefix || key[1] != famRank {
		return 0, false
	}
	n := key[len(key)-4:]
	return uint32(n[0])<<24 | uint32(n[1])<<16 | uint32(n[2])<<8 | uint32(n[3]), true
}

// WalkRank calls fn with the document number of every rank key after
// (strictly) the key after, in rank order, from the first when after is
// nil, until fn returns false or an error. It reads the committed index,
// from the in-memory rank order (rankTree), so a step costs a few tens of
// nanoseconds rather than a Pebble iterator step, and a few nanoseconds
// once the order is flattened (rankFlat).
func (ix *Index) WalkRank(after []byte, fn func(num uint32) (bool, error)) error {
	sn, err := ix.rank.tree(ix.r)
	if err != nil {
		return err
	}
	if f := sn.flattened(); f != nil {
		return f.walk(after, fn)
	}
	return sn.walkTree(after, fn)
}

// walkTree is WalkRank over the B-tree.
func (sn *rankSnap) walkTree(after []byte, fn func(num uint32) (bool, error)) error {
	steps := 0
	defer func() { sn.walked(steps) }()
	var ferr error
	visit := func(key string) bool {
		steps++
		num, ok := rankNum(key)
		if !ok {
			ferr = errShortRankKey(key)
			return false
		}
		more, err := fn(num)
		ferr = err
		return more && err == nil
	}
	if after == nil {
		sn.t.Ascend(visit)
	} else {
		sn.t.AscendGreaterOrEqual(string(after)+"\x00", visit) // the least key greater than after
	}
	return ferr
}

// RankNums returns the document numbers of the rank keys after
// (strictly) the key after, in rank order, from the first when after is
// nil, as one slice, when the committed rank order is flattened (see
// rankSnap); ok is false when it is not, and WalkRank, which flattens it
// once walks have passed enough keys, walks it instead. The slice is
// shared and never modified: read it, do not change it. It stays valid
// after later commits (which publish another order).
func (ix *Index) RankNums(after []byte) (nums []uint32, ok bool, err error) {
	sn, err := ix.rank.tree(ix.r)
	if err != nil {
		return nil, false, err
	}
	f := sn.flattened()
	if f == nil {
		return nil, false, nil
	}
	return f.nums[f.start(after):], true, nil
}

// RankFlat reports whether the committed rank order is in memory and
// flattened, so that a walk of it (RankNums) costs a few nanoseconds a
// key rather than a B-tree's fifty. It builds nothing.
func (ix *Index) RankFlat() bool {
	sn := ix.rank.snap.Load()
	return sn != nil && sn.flat.Load() != nil
}

// CountRankSteps counts steps keys toward flattening the committed rank
// order, as if a walk had passed them: a resolver that selected a page
// a walk of the flattened order would have ranked for less says so, so
// that an order only ever selected from is flattened too once that has
// cost enough. It builds the in-memory order when it is not built.
func (ix *Index) CountRankSteps(steps int) error {
	sn, err := ix.rank.tree(ix.r)
	if err != nil {
		return err
	}
	sn.walked(steps)
	sn.flattened() // now, if that was enough: RankFlat then says so
	return nil
}

func errShortRankKey(key string) error {
	return fmt.Errorf("%w: rank key %x is too short: run `aqlstore reindex`", store.ErrCorrupt, key)
}

// Warm builds the in-memory rank order now, flattened, so that the first
// page walked in rank order does not pay for it (about a second at a
// million documents); `serve --prewarm` calls it before it fills the
// block cache.
func (ix *Index) Warm() error {
	sn, err := ix.rank.tree(ix.r)
	if err != nil {
		return err
	}
	_, err = sn.flatten()
	return err
}

// walkRankKeys is WalkRank over the stored keys, without the in-memory
// order: what the order is built from, and what tests compare it with.
func (ix *Index) walkRankKeys(fn func(key []byte) (bool, error)) error {
	return ix.r.Keys(appendFamily(nil, famRank), appendFamily(nil, famRank+1), fn)
}

// rankTree keeps the committed rank keys in memory, in a B-tree
// (github.com/google/btree), so that a page walks them without a Pebble
// iterator. It is built from the stored keys by the first walk after
// open (a store that is never paged pays nothing), and from then on
// each commit applies its own rank keys to it (Index.Done): a copy-on-
// write clone per commit, published whole, so a walk sees one commit
// and never half of one, and a commit copies only the nodes it changes.
//
// A commit with more rank keys than rankDeltaMax (a bulk load) drops the
// tree instead, and the next walk builds it again: a rebuild costs less
// than holding a million keys for the delta.
//
// Building reads the stored keys while holding mu, which Done also takes
// to apply a delta. A commit whose batch the scan already saw applies
// its keys again when Done runs; setting a key twice or deleting a
// missing one changes nothing, so the tree is right either way.
type rankTree struct {
	mu      sync.Mutex
	master  *btree.BTreeG[string] // the writer's copy; nil until built
	snap    atomic.Pointer[rankSnap]
	delta   []rankEdit // the running mutation's keys, in flush order
	overrun bool       // the running mutation has more than rankDeltaMax keys
}

// rankEdit is one rank key a mutation sets or deletes.
type rankEdit struct {
	key string
	set bool
}

// rankDeltaMax bounds the rank keys a commit applies to the in-memory
// order; a larger commit drops it (see rankTree). A variable for tests.
var rankDeltaMax = 1 << 16

// rankTreeDegree is the B-tree's degree: nodes of up to 63 keys.
const rankTreeDegree = 32

// tree returns the committed rank order, building it from r when it is
// not built. The order returned is never modified: safe to read from any
// number of goroutines.
func (rt *rankTree) tree(r *store.IndexReader) (*rankSnap, error) {
	if t := rt.snap.Load(); t != nil {
		return t, nil
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if t := rt.snap.Load(); t != nil {
		return t, nil
	}
	master := btree.NewOrderedG[string](rankTreeDegree)
	err := r.Keys(appendFamily(nil, famRank), appendFamily(nil, famRank+1), func(key []byte) (bool, error) {
		master.ReplaceOrInsert(string(key))
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	rt.master = master
	sn := &rankSnap{t: master.Clone()}
	rt.snap.Store(sn)
	return sn, nil
}

// note records a key the running mutation writes.
func (rt *rankTree) note(key string, set bool) {
	if rt.overrun {
		return
	}
	if len(rt.delta) >= rankDeltaMax {
		rt.delta, rt.overrun = nil, true
		return
	}
	rt.delta = append(rt.delta, rankEdit{key, set})
}

// done ends the mutation: a committed one's keys are applied to the
// tree (or the tree is dropped, see rankTree); an aborted one's are
// forgotten.
func (rt *rankTree) done(committed bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	switch {
	case !committed || rt.master == nil:
	case rt.overrun:
		rt.drop()
	case len(rt.delta) > 0:
		for _, e := range rt.delta {
			if e.set {
				rt.master.ReplaceOrInsert(e.key)
			} else {
				rt.master.Delete(e.key)
			}
		}
		rt.snap.Store(&rankSnap{t: rt.master.Clone()})
	}
	rt.delta, rt.overrun = rt.delta[:0], false
}

// reset drops the tree: the index was loaded again (open, reindex).
func (rt *rankTree) reset() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.drop()
	rt.delta, rt.overrun = rt.delta[:0], false
}

func (rt *rankTree) drop() {
	rt.master = nil
	rt.snap.Store(nil)
}

// rankKeys is a mutation's rank keys: each key's last operation, true to
// set it, false to delete it, written in key order by Flush.
type rankKeys map[string]bool

func (rk rankKeys) note(doc store.IndexInput, num uint32, set bool, scratch []byte) ([]byte, error) {
	key, err := AppendRankKey(scratch[:0], doc.Score, doc.CandidateID, num)
	if err != nil {
		return key, fmt.Errorf("index: document %d: score: %w", num, err)
	}
	rk[string(key)] = set
	return key, nil
}

func (rk rankKeys) flush(w *store.IndexWriter, rt *rankTree) error {
	keys := make([]string, 0, len(rk))
	for k := range rk {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		var err error
		rt.note(k, rk[k])
		if rk[k] {
			err = w.Set([]byte(k), rankValue)
		} else {
			err = w.Delete([]byte(k))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
