package store

import "hash/maphash"

// loadMem holds the keys a Loader's checks read back from its own
// earlier documents (id, natural and reference keys, records cut to
// their bodies' codec byte): a few per document for the whole load, so
// at a million documents millions of entries. A map of strings made the
// collector scan every one of them at every cycle; here keys and values
// live end to end in byte chunks, found through an open-addressing
// table of (hash, entry index) words, and nothing but the chunk list
// holds a pointer. A value set again is written anew and the entry
// moved to it. Not safe for concurrent use.
type loadMem struct {
	seed   maphash.Seed
	table  []uint64 // hash<<32 | entry index + 1, 0 for an empty slot
	ents   []memEnt
	chunks [][]byte
}

type memEnt struct {
	chunk, off uint32 // the key, then the value, are chunks[chunk][off:]
	klen, vlen uint32
}

const memChunk = 1 << 20

func newLoadMem() *loadMem { return &loadMem{seed: maphash.MakeSeed(), table: make([]uint64, 1<<10)} }

// get returns the value of key, valid until the next set.
func (m *loadMem) get(key []byte) ([]byte, bool) {
	_, i := m.lookup(key, uint32(maphash.Bytes(m.seed, key)))
	if i < 0 {
		return nil, false
	}
	e := &m.ents[i]
	c := m.chunks[e.chunk]
	return c[e.off+e.klen : e.off+e.klen+e.vlen], true
}

// set sets key to a copy of value.
func (m *loadMem) set(key, value []byte) {
	h := uint32(maphash.Bytes(m.seed, key))
	slot, i := m.lookup(key, h)
	if i < 0 {
		i = len(m.ents)
		m.ents = append(m.ents, memEnt{})
		m.table[slot] = uint64(h)<<32 | uint64(i+1)
	}
	n := len(key) + len(value)
	last := len(m.chunks) - 1
	if last < 0 || cap(m.chunks[last])-len(m.chunks[last]) < n {
		m.chunks = append(m.chunks, make([]byte, 0, max(memChunk, n)))
		last++
	}
	off := len(m.chunks[last])
	m.chunks[last] = append(append(m.chunks[last], key...), value...)
	m.ents[i] = memEnt{chunk: uint32(last), off: uint32(off), klen: uint32(len(key)), vlen: uint32(len(value))}
	if 2*len(m.ents) > len(m.table) { // at most half full: probes stay short
		m.grow()
	}
}

// lookup returns the table slot of key, whose hash is h, and its entry
// index; -1 and the empty slot it would take when m has no such key.
func (m *loadMem) lookup(key []byte, h uint32) (uint32, int) {
	mask := uint32(len(m.table) - 1)
	for slot := h & mask; ; slot = (slot + 1) & mask {
		v := m.table[slot]
		if v == 0 {
			return slot, -1
		}
		if uint32(v>>32) != h {
			continue
		}
		i := int(uint32(v) - 1)
		e := &m.ents[i]
		if string(m.chunks[e.chunk][e.off:e.off+e.klen]) == string(key) {
			return slot, i
		}
	}
}

func (m *loadMem) grow() {
	old := m.table
	m.table = make([]uint64, 2*len(old))
	mask := uint32(len(m.table) - 1)
	for _, v := range old {
		if v == 0 {
			continue
		}
		slot := uint32(v>>32) & mask
		for m.table[slot] != 0 {
			slot = (slot + 1) & mask
		}
		m.table[slot] = v
	}
}
