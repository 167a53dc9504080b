package index

import (
	"encoding/binary"
	"runtime"
	"sync"
)

// shards add extracted documents' path postings on goroutines of their
// own, one postingSet each, while the writer goes on numbering and
// checking the next documents: the writer's share of an indexed put is
// then what only it can do (path ids, rank keys), and the posting work,
// most of an indexed put's, runs on every core. A path's postings all go
// to one shard (path id modulo the shard count), so a key is in one set
// and each set receives its documents in ascending number order, as
// postingSet needs.
//
// Each shard reads every entry of a document and skips the others'.
// Grouping a document's entries by shard in Extract instead (shard by a
// hash of the path, known there, rather than by its id) so that a shard
// reads only its own was measured on 200,000 manifests (aqlstore put,
// CPU-s, four interleaved pairs): no gain within the noise of the
// measure, the hash per path and the second copy of the entries costing
// about what the skipped decoding saved.
//
// The writer hands a document over with add and must call wait before
// it reads or resets the sets; wait stops the goroutines, and the next
// add starts them again, so nothing runs between mutations.
type shards struct {
	sets    []*postingSet
	jobs    []chan shardJob
	wg      sync.WaitGroup
	running bool
	batch   keyBatch // addTo's scratch when there is one shard
	// mask is the shard count less one when the count is a power of two
	// (owner masks instead of dividing), else 0.
	mask uint32
	// skip is a family whose postings the sets leave out (a load's
	// derived buckets, Index.StartLoad), 0 for none. It changes only
	// while the goroutines are stopped.
	skip byte
}

type shardJob struct {
	num uint32
	x   *extracted
}

// shardQueue is how many documents a shard may lag behind the writer.
const shardQueue = 128

func newShards() *shards {
	n := max(1, runtime.GOMAXPROCS(0))
	sh := &shards{sets: make([]*postingSet, n)}
	if n&(n-1) == 0 {
		sh.mask = uint32(n - 1)
	}
	for i := range sh.sets {
		sh.sets[i] = newPostingSet()
	}
	return sh
}

// add records the path postings of x (whose path ids are resolved) for
// document num. x must not change until wait returns.
func (sh *shards) add(num uint32, x *extracted) {
	if len(sh.sets) == 1 {
		sh.addTo(0, shardJob{num, x}, &sh.batch)
		return
	}
	if !sh.running {
		sh.start()
	}
	for _, c := range sh.jobs {
		c <- shardJob{num, x}
	}
}

func (sh *shards) start() {
	sh.running = true
	sh.jobs = make([]chan shardJob, len(sh.sets))
	for i := range sh.sets {
		c := make(chan shardJob, shardQueue)
		sh.jobs[i] = c
		sh.wg.Add(1)
		go func() {
			defer sh.wg.Done()
			var b keyBatch
			for j := range c {
				sh.addTo(i, j, &b)
			}
		}()
	}
}

// owner returns the shard of the postings of path id.
func (sh *shards) owner(id uint32) uint32 {
	if sh.mask != 0 || len(sh.sets) == 1 {
		return id & sh.mask
	}
	return id % uint32(len(sh.sets))
}

// wait returns once every document handed over is in the sets.
func (sh *shards) wait() {
	if !sh.running {
		return
	}
	for _, c := range sh.jobs {
		close(c)
	}
	sh.wg.Wait()
	sh.running, sh.jobs = false, nil
}

// addTo adds the postings of j's paths that belong to shard i; b is
// scratch.
func (sh *shards) addTo(i int, j shardJob, b *keyBatch) {
	me := uint32(i)
	set := sh.sets[i]
	b.reset()
	for _, id := range j.x.ids { // existence: one per listed path
		if sh.owner(id) == me {
			b.add(set, famExists, id, nil, j.num)
		}
	}
	for e := j.x.entries; len(e) > 0; {
		p, k := binary.Uvarint(e)
		fam := e[k]
		e = e[k+1:]
		l, k := binary.Uvarint(e)
		value := e[k : k+int(l)]
		e = e[k+int(l):]
		if fam == sh.skip {
			continue
		}
		id := j.x.ids[p]
		if sh.owner(id) != me {
			continue
		}
		b.add(set, fam, id, value, j.num)
		if fam == famRange && j.x.noBuckets && sh.skip != famBucket && len(value) > 0 {
			// Extracted during a load, added after it: the buckets the
			// extraction left out.
			for level, n := range bucketLevels(value[0]) {
				b.keys = appendBucket(appendPathKey(b.keys, famBucket, id), value, level, n)
				b.ends = append(b.ends, uint32(len(b.keys)))
			}
		}
	}
	set.addAll(b, j.num)
}

// add adds the key of family fam and value under path id for num: at
// once by its path slot when it has one (pathSlot), else into b, which
// set.addAll adds.
func (b *keyBatch) add(set *postingSet, fam byte, id uint32, value []byte, num uint32) {
	if slot, ok := pathSlot(id, fam, value); ok {
		b.key = append(appendPathKey(b.key[:0], fam, id), value...)
		set.addAt(slot, b.key, num)
		return
	}
	b.keys = append(appendPathKey(b.keys, fam, id), value...)
	b.ends = append(b.ends, uint32(len(b.keys)))
}

// reset empties the sets; the caller has waited.
func (sh *shards) reset() {
	for _, s := range sh.sets {
		s.reset()
	}
}

// resetRun empties the sets for a load's next run, keeping their memory.
func (sh *shards) resetRun() {
	for _, s := range sh.sets {
		s.resetRun()
	}
}
