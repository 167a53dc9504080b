package store

import (
	"runtime"
	"sync"
)

// A put of new content reads two keys that are usually absent: the
// reference count of its content id and, for a document with a natural
// key, that key. Read under the writer lock through the mutation's
// batch, they were a fifth of the writer's time for a batch of 1,000
// manifests. probe reads them before the lock, on every core, straight
// from the committed database, and notes which are absent; the writer
// trusts those answers only when the write count (kv.writeEpoch) is the
// same even number after the probe as before it, so that no write began
// or ended in between, and checks the keys its own mutation wrote in a
// map. Anything probe found present, or any write that came between, is
// read under the lock as before: the answers stay exact.

// absentKeys says which of a document's keys probe found absent.
type absentKeys uint8

const (
	absentRefs    absentKeys = 1 << iota // the reference count of its content id
	absentNatural                        // its natural key
)

// probed is what probe found of a batch: a bit set per document, and
// the write count before it read.
type probed struct {
	epoch  uint64
	absent []absentKeys
}

// probeMin is the smallest batch probe reads for: a single put reads
// its two keys under the lock, where reading them outside it too would
// double its cost.
const probeMin = 8

// probe reads, before the writer lock, which of docs' reference counts
// and natural keys the committed database lacks. A read error leaves
// the key to the writer, which reports it.
func (s *Store) probe(docs []*Prepared) probed {
	pr := probed{epoch: s.kv.writeEpoch()}
	if !quiet(pr.epoch) || len(docs) < probeMin {
		return pr // a write under way: its keys may not be visible yet
	}
	pr.absent = make([]absentKeys, len(docs))
	workers := min(runtime.GOMAXPROCS(0), (len(docs)+probeMin-1)/probeMin)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var key, val []byte
			absent := func(k []byte) bool {
				var found bool
				var err error
				val, found, err = s.kv.get(k, val[:0])
				return err == nil && !found
			}
			for i := w; i < len(docs); i += workers {
				pd := docs[i]
				if key = AppendRefsKey(key[:0], pd.id); absent(key) {
					pr.absent[i] |= absentRefs
				}
				if d := &pd.p.Document; d.NaturalKey != "" {
					if key = AppendNaturalKey(key[:0], d.Kind, pd.owner, d.NaturalKey); absent(key) {
						pr.absent[i] |= absentNatural
					}
				}
			}
		}()
	}
	wg.Wait()
	return pr
}
