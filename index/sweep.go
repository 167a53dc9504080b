package index

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/aqlstore/aqlstore/store"
)

// The path dictionary ('p', 'P') only ever grew: a member name that only
// deleted documents had stayed on disk for good, and a member name can be
// private data (a key named after a person). Store.Compact calls Sweep
// (store.IndexSweeper) under the writer lock; it drops the paths where no
// committed document has a value, and with them the empty posting lists
// still keyed by their ids. A dropped id is never given out again: the
// next id is persisted ('N'), so a posting left under an old id could
// never be read as a new path's.

// sweepIDs is how many path ids one Sweep step covers. Writers wait for a
// step, not for the sweep: a step reads the existence postings of these
// paths, and for each path it drops, seeks once per per-path family.
const sweepIDs = 1024

// pathFamilies are the families keyed by a path id, existence first.
var pathFamilies = []byte{famExists, famEq, famRange, famBucket, famTyped, famMulti, famGram, famShort, famLong, famNoGram}

// Sweep implements store.IndexSweeper: it deletes the dictionary entries
// of the paths with ids in [from, from+sweepIDs) where no committed
// document has a value, and the empty posting lists under their ids, and
// records them to forget when the step commits (Done). The store holds
// its writer lock, so no mutation is running: fresh is empty and the
// dictionary changes only here.
func (ix *Index) Sweep(r *store.IndexReader, w *store.IndexWriter, from []byte) ([]byte, error) {
	lo := uint32(1) // ids start at 1 (New)
	if from != nil {
		if len(from) != 4 {
			return nil, fmt.Errorf("index: sweep cursor %x is not a path id", from)
		}
		lo = binary.BigEndian.Uint32(from)
	}
	hi := ix.next
	if lo >= hi {
		return nil, nil
	}
	if hi-lo > sweepIDs {
		hi = lo + sweepIDs
	}
	live, err := livePaths(r, lo, hi)
	if err != nil {
		return nil, err
	}
	for id := lo; id < hi; id++ {
		p, ok := ix.paths[id]
		if !ok || live[id] {
			continue
		}
		if err := ix.dropPath(r, w, id, p); err != nil {
			return nil, err
		}
	}
	if len(ix.drops) > 0 {
		if err := w.Set(appendFamily(nil, famNext), binary.BigEndian.AppendUint32(nil, ix.next)); err != nil {
			return nil, err
		}
	}
	if hi == ix.next {
		return nil, nil
	}
	return binary.BigEndian.AppendUint32(nil, hi), nil
}

// livePaths returns the ids in [lo, hi) whose existence posting lists a
// document.
func livePaths(r *store.IndexReader, lo, hi uint32) (map[uint32]bool, error) {
	live := map[uint32]bool{}
	start, end := appendPathKey(nil, famExists, lo), appendPathKey(nil, famExists, hi)
	err := r.Scan(start, end, func(key, value []byte) error {
		if len(key) == len(start) && !store.EmptyPosting(value) {
			live[binary.BigEndian.Uint32(key[2:])] = true
		}
		return nil
	})
	return live, err
}

// dropPath deletes path p (id) from the dictionary, with the keys its
// postings leave under the id, if every one of them is empty. A posting
// that lists a document under a path without existence postings is
// damage (Check reports it): the path is kept, which is always safe.
func (ix *Index) dropPath(r *store.IndexReader, w *store.IndexWriter, id uint32, p Path) error {
	var keys [][]byte
	for _, fam := range pathFamilies {
		err := r.Scan(appendPathKey(nil, fam, id), appendPathKey(nil, fam, id+1), func(key, value []byte) error {
			if !store.EmptyPosting(value) {
				return errLivePosting
			}
			keys = append(keys, key)
			return nil
		})
		if errors.Is(err, errLivePosting) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	idb := binary.BigEndian.AppendUint32(nil, id)
	keys = append(keys, append(appendFamily(nil, famPath), p...), append(appendFamily(nil, famPathID), idb...))
	for _, k := range keys {
		if err := w.Delete(k); err != nil {
			return err
		}
	}
	ix.drops = append(ix.drops, id)
	return nil
}

// forgetDropped takes the paths a committed sweep step deleted out of the
// dictionary lookups read; the caller holds ix.mu for writing. A lookup
// that resolved a pointer to a dropped id before this reads nothing under
// it: its postings are gone, and the id is never reused.
func (ix *Index) forgetDropped() {
	if len(ix.drops) == 0 {
		return
	}
	gone := make(map[uint32]bool, len(ix.drops))
	for _, id := range ix.drops {
		gone[id] = true
		delete(ix.ids, ix.paths[id])
		delete(ix.paths, id)
	}
	kept := ix.dict[:0]
	for _, e := range ix.dict {
		if !gone[e.id] {
			kept = append(kept, e)
		}
	}
	clear(ix.dict[len(kept):]) // drop the decoded segments of the gone
	ix.dict = kept
	ix.memoM.Lock()
	ix.memo = nil
	ix.memoM.Unlock()
}
