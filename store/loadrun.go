package store

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"math"
	"math/bits"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// A run is the keys a Loader gathered for a span of documents: plain
// values (document keys, receipts, index keys set whole) and posting
// lists (ascending document numbers, all of them above every number of
// an earlier run). It is sorted once, when it is spilled or merged.
//
// A spilled run is a file per key range (rangeOf) of entries in key
// order, but for its ascending ranges (ascendingRange), which go into
// sstables as they are:
//
//	uvarint(len key) key tag uvarint(len value) value
//
// tag 's' for a plain value, 'p' for a posting list, whose value is its
// numbers as posting writes them. The ranges are merged on goroutines of
// their own, each into its own sstables: ranges do not overlap, so
// neither do the tables.
//
// The run in memory holds no pointer the garbage collector must follow
// besides its chunk list: a run of 100,000 documents is millions of keys
// and values, and a slice pair per entry made every collection scan all
// of them. Keys and values live end to end in fixed chunks, addressed by
// (chunk, offset), and an entry keeps its key's first eight bytes as an
// integer, which orders most keys without reading the arena.
type loadRun struct {
	ents   []runEnt
	chunks [][]byte // chunks[len-1] is being filled
	bytes  int      // keys and values held
	docs   int
	gaps   []byte // posting's scratch
}

// runEnt is an entry of a run in memory.
type runEnt struct {
	pre        uint64 // the key's first 8 bytes, big-endian, zero-padded
	chunk, off uint32 // the key, then the value, are chunks[chunk][off:]
	klen, vlen uint32
	seq        int32 // the order it was set in: of two values of a key the later wins
	posting    bool
}

// runEntry is an entry as the merge reads it.
type runEntry struct {
	key, value []byte
	posting    bool
}

const (
	tagPlain   = 's'
	tagPosting = 'p'
	runChunk   = 4 << 20
)

func newLoadRun() *loadRun { return &loadRun{} }

// newLoadRunLike returns a run whose entries start with room for as
// many as prev's, the run before it: the runs of a load are alike, and
// growing the entries by doubling copied them over and over.
func newLoadRunLike(prev int) *loadRun { return &loadRun{ents: make([]runEnt, 0, prev+prev/8)} }

// rangeOf returns the range of key: a load's keys are split by family,
// the first key byte and the second under the index prefix, and ranges
// order as their keys do. Each range is sorted, merged and
// written into sstables of its own, on as many goroutines as there are
// cores, and the families the store writes outside loads (meta keys, an
// index's configuration) get tables of their own: only those small
// tables overlap the memtable, so the large ones are ingested straight
// into the last level and nothing is compacted after a load.
func rangeOf(key []byte) int {
	r := int(key[0]) * 257
	if key[0] == IndexPrefix && len(key) > 1 {
		r += 1 + int(key[1])
	}
	return r
}

// rangePath is the file of range r of the run spilled at path.
func rangePath(path string, r int) string { return fmt.Sprintf("%s.r%d", path, r) }

// alloc returns room for n bytes in the arena and its address.
func (r *loadRun) alloc(n int) ([]byte, uint32, uint32) {
	c := len(r.chunks) - 1
	if c < 0 || cap(r.chunks[c])-len(r.chunks[c]) < n {
		r.chunks = append(r.chunks, make([]byte, 0, max(runChunk, n)))
		c++
	}
	off := len(r.chunks[c])
	r.chunks[c] = r.chunks[c][:off+n]
	return r.chunks[c][off : off+n], uint32(c), uint32(off)
}

// add appends an entry of key and a value of vlen bytes, and returns
// the value's room.
func (r *loadRun) add(key []byte, vlen int, posting bool) []byte {
	b, c, off := r.alloc(len(key) + vlen)
	copy(b, key)
	r.ents = append(r.ents, runEnt{pre: prefix8(key), chunk: c, off: off, klen: uint32(len(key)), vlen: uint32(vlen),
		seq: int32(len(r.ents)), posting: posting})
	r.bytes += len(key) + vlen
	return b[len(key):]
}

func (r *loadRun) set(key, value []byte) { copy(r.add(key, len(value), false), value) }

// posting adds the posting list nums (ascending, no repeats) at key,
// held as its first number and then the gaps between numbers, each a
// uvarint: a gap within a run mostly takes one byte where a number took
// four, in memory, in the spilled files and in the merge's reads. On
// 200,000 manifests (aqlstore put) the load took 19.2-19.5 CPU-s against
// 20.7-21.2 with 4-byte words.
func (r *loadRun) posting(key []byte, nums []uint32) {
	r.gaps = appendGaps(r.gaps[:0], nums)
	copy(r.add(key, len(r.gaps), true), r.gaps)
}

// appendGaps appends nums (ascending) as posting writes them. A gap of
// one byte, most of them, skips binary's loop here and in
// appendNumbers: BenchmarkPostingGaps.
func appendGaps(dst []byte, nums []uint32) []byte {
	prev := uint32(0)
	for _, n := range nums {
		if d := n - prev; d < 0x80 {
			dst = append(dst, byte(d))
		} else {
			dst = binary.AppendUvarint(dst, uint64(d))
		}
		prev = n
	}
	return dst
}

// appendNumbers appends the numbers of a posting list in the form
// appendGaps writes.
func appendNumbers(dst []uint32, v []byte) ([]uint32, error) {
	n := uint32(0)
	for len(v) > 0 {
		if v[0] < 0x80 {
			n += uint32(v[0])
			v = v[1:]
		} else {
			d, k := binary.Uvarint(v)
			if k <= 0 || d > math.MaxUint32 {
				return dst, fmt.Errorf("%w: a load's posting list holds a bad gap", ErrCorrupt)
			}
			n += uint32(d)
			v = v[k:]
		}
		dst = append(dst, n)
	}
	return dst, nil
}

// prefix8 is the first eight bytes of key as a big-endian integer: keys
// order as these do, then as the rest of their bytes.
func prefix8(key []byte) uint64 {
	if len(key) >= 8 {
		return binary.BigEndian.Uint64(key)
	}
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

func (r *loadRun) key(e *runEnt) []byte {
	c := r.chunks[e.chunk]
	return c[e.off : e.off+e.klen : e.off+e.klen]
}

func (r *loadRun) entry(e *runEnt) runEntry {
	c := r.chunks[e.chunk]
	k := e.off + e.klen
	return runEntry{key: c[e.off:k:k], value: c[k : k+e.vlen : k+e.vlen], posting: e.posting}
}

// warmAhead is how many entries ahead of the one it reads a pass over
// sorted entries touches a key: sorted, they read the arena at random,
// and a read whose result nothing waits on lets the misses of the next
// entries overlap this one's work instead of stalling it one by one.
const warmAhead = 16

// warm returns the first byte of ents[i]'s key, 0 if there is no
// ents[i]. Its callers add what it returns into warmSink, once, so that
// the reads are not dropped.
func (r *loadRun) warm(ents []runEnt, i int) byte {
	if i < len(ents) {
		e := &ents[i]
		return r.chunks[e.chunk][e.off]
	}
	return 0
}

var warmSink atomic.Uint32

// sort orders the entries by key, a range per goroutine, and returns
// them by range; of two plain values of one key (a reference count
// counted up twice) the later wins.
func (r *loadRun) sort() map[int][]runEnt {
	// The entries are split into one array, range by range, counted
	// first: appending to a slice per range copied each range's entries
	// again at every doubling, a twentieth of a load's CPU.
	of := make([]uint16, len(r.ents))  // an entry's range, by its place in counts
	ids := make([]uint16, 256*257+257) // a range's place in counts + 1, 0 while it has none
	var ranges []int                   // by place
	var counts []int
	for i := range r.ents {
		rg := rangeOf(r.key(&r.ents[i]))
		if ids[rg] == 0 {
			ranges, counts = append(ranges, rg), append(counts, 0)
			ids[rg] = uint16(len(counts))
		}
		of[i] = ids[rg] - 1
		counts[of[i]]++
	}
	all := make([]runEnt, len(r.ents))
	at := make([]int, len(counts))
	for i, sum := 1, 0; i < len(counts); i++ {
		sum += counts[i-1]
		at[i] = sum
	}
	for i := range r.ents { // stable: a key's entries keep their order
		all[at[of[i]]] = r.ents[i]
		at[of[i]]++
	}
	parts := make(map[int][]runEnt, len(counts))
	for id, rg := range ranges {
		end := at[id]
		parts[rg] = all[end-counts[id] : end : end]
	}
	r.ents = nil
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	sorted := make([][]runEnt, len(ranges))
	for i, rg := range ranges {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			sorted[i] = r.sortEntries(parts[rg])
		}()
	}
	wg.Wait()
	for i, rg := range ranges {
		parts[rg] = sorted[i]
	}
	return parts
}

func (r *loadRun) sortEntries(ents []runEnt) []runEnt {
	r.sortFrom(ents, 0, make([]runEnt, len(ents)))
	out := ents[:0]
	for i, e := range ents {
		if i+1 < len(ents) && !e.posting && !ents[i+1].posting && e.pre == ents[i+1].pre &&
			bytes.Equal(r.key(&e), r.key(&ents[i+1])) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// sortFrom sorts ents, whose keys share their first depth bytes and
// whose pre holds the next eight, eight key bytes at a time: a range's
// keys share long prefixes (an index key's path id, then values such as
// URLs, dates and DIDs), and comparing them whole read the arena at
// every comparison. A group of keys that agree on these eight bytes and
// go on is sorted on the next eight, loaded once per key. Many entries
// are first ordered by pre with a radix sort, then each group that
// shares it by the rest of the order; tmp is scratch as long as ents.
func (r *loadRun) sortFrom(ents []runEnt, depth int, tmp []runEnt) {
	end := uint32(depth + 8) // a key no longer than this ends within pre
	if len(ents) >= radixMin {
		radixByPre(ents, tmp)
		for i := 0; i < len(ents); {
			j := i + 1
			for j < len(ents) && ents[j].pre == ents[i].pre {
				j++
			}
			if j-i > 1 {
				sortSamePre(ents[i:j], end)
			}
			i = j
		}
	} else {
		sortSamePre(ents, end)
	}
	// The groups to sort on: their keys' next eight bytes are loaded in
	// one pass over them all, so that the reads of small groups overlap
	// too, before any is sorted. A group whose keys all go on with the
	// same eight bytes or more (a path's values that share a scheme and
	// host) skips them all at once, reading its keys a second time
	// rather than once per eight shared bytes.
	var groups [][3]int // start, end, depth
	for i := 0; i < len(ents); {
		j := i + 1
		if ents[i].klen > end {
			for j < len(ents) && ents[j].pre == ents[i].pre && ents[j].klen > end {
				j++
			}
		}
		if j-i > 1 {
			groups = append(groups, [3]int{i, j, int(end)})
		}
		i = j
	}
	sink := byte(0)
	for gi, g := range groups {
		first := r.key(&ents[g[0]])[end:]
		shared := len(first) // the bytes every key of the group goes on with, while 8 or more
		for k := g[0]; k < g[1]; k++ {
			sink += r.warm(ents, k+warmAhead)
			rest := r.key(&ents[k])[end:]
			ents[k].pre = prefix8(rest)
			if shared >= 8 {
				shared = commonPrefix(first[:shared], rest)
			}
		}
		if shared >= 8 {
			for k := g[0]; k < g[1]; k++ {
				sink += r.warm(ents, k+warmAhead)
				ents[k].pre = prefix8(r.key(&ents[k])[int(end)+shared:])
			}
			groups[gi][2] += shared
		}
	}
	warmSink.Add(uint32(sink))
	for _, g := range groups {
		r.sortFrom(ents[g[0]:g[1]], g[2], tmp[:g[1]-g[0]])
	}
}

// commonPrefix returns the length of the longest prefix a and b share.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}

// radixMin is how many entries sortFrom orders with a radix sort.
const radixMin = 64

// radixByPre sorts ents by pre, stably: a least significant digit radix
// sort a byte at a time, skipping the bytes every entry shares; tmp is
// scratch as long as ents.
func radixByPre(ents, tmp []runEnt) {
	var count [8][256]int
	for i := range ents {
		p := ents[i].pre
		for d := range 8 {
			count[d][byte(p>>(8*d))]++
		}
	}
	src, dst := ents, tmp[:len(ents)]
	for d := range 8 {
		c := &count[d]
		if c[byte(src[0].pre>>(8*d))] == len(src) {
			continue
		}
		sum := 0
		for b, n := range c {
			c[b] = sum
			sum += n
		}
		for i := range src {
			b := byte(src[i].pre >> (8 * d))
			dst[c[b]] = src[i]
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ents[0] {
		copy(ents, src)
	}
}

// sortSamePre sorts ents by pre and then, among equal pre, as a run
// orders keys whose first end bytes those are: a key that ends within
// them before one that goes on, the shorter first, and of equal ones the
// one set first.
func sortSamePre(ents []runEnt, end uint32) {
	slices.SortFunc(ents, func(a, b runEnt) int {
		if a.pre != b.pre {
			if a.pre < b.pre {
				return -1
			}
			return 1
		}
		aEnds, bEnds := a.klen <= end, b.klen <= end
		switch {
		case aEnds && bEnds: // the shorter is a prefix of the other ("a" and "a\x00" pad alike)
			if a.klen != b.klen {
				return int(a.klen) - int(b.klen)
			}
			return int(a.seq - b.seq)
		case aEnds:
			return -1
		case bEnds:
			return 1
		}
		return int(a.seq - b.seq)
	})
}

// spilled is a run written to files: one per range it has keys in.
type spilled struct {
	path   string
	ranges map[int]int       // the ranges it has a file of, with their entries (the merge's order)
	asc    map[int]ascending // what it wrote of the ascending ranges, until apply
}

// ascendingRange reports whether range r holds only plain keys that a
// load writes in ascending order of document number or receipt
// sequence, each once: records, column entries and receipts. A later
// run's keys of such a range all follow an earlier run's, so a spilled
// run writes them straight into the load's sstables (writeAscending)
// instead of a file that the merge reads back: they are most of a
// run's bytes.
func ascendingRange(r int) bool {
	return r == int(prefixDoc)*257 || r == int(prefixColumn)*257 || r == int(prefixReceipt)*257
}

// ascending is what the load wrote of an ascending range: its tables,
// and its last key, which the next run's first must follow.
type ascending struct {
	tables []string
	last   []byte
}

// follows checks that key, the first of a run's entries of the range,
// follows what earlier runs wrote of it (a nil a: nothing yet).
func (a *ascending) follows(key []byte) error {
	if a != nil && bytes.Compare(key, a.last) <= 0 {
		return fmt.Errorf("%w: key %q of a load's run does not follow the run before it (%q)", ErrCorrupt, key, a.last)
	}
	return nil
}

// spillRun writes run r's ranges, on as many goroutines as there are
// cores: an ascending range into tables, the others into files beside
// path. It reads l.asc, which the caller updates with the result
// (spilled.apply) before the next run spills, and writes nothing of l
// but its files: it may run while the next run is built.
func (l *Loader) spillRun(r *loadRun, path string) (spilled, error) {
	sp := spilled{path: path, ranges: map[int]int{}, asc: map[int]ascending{}}
	parts := r.sort()
	ranges := slices.Sorted(maps.Keys(parts))
	errs := make([]error, len(ranges))
	tables := make([][]string, len(ranges))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for i, rg := range ranges {
		if !ascendingRange(rg) {
			sp.ranges[rg] = len(parts[rg])
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if ascendingRange(rg) {
				tables[i], errs[i] = l.writeAscending(r, rg, parts[rg], fmt.Sprintf("%s-r%d", filepath.Base(path), rg))
				return
			}
			errs[i] = r.spillRange(l.s.kv.fs(), rangePath(path, rg), parts[rg])
		}()
	}
	wg.Wait()
	for i, rg := range ranges {
		if errs[i] != nil {
			return sp, errs[i]
		}
		if ascendingRange(rg) {
			e := r.entry(&parts[rg][len(parts[rg])-1])
			sp.asc[rg] = ascending{tables: tables[i], last: slices.Clone(e.key)}
		}
	}
	return sp, nil
}

// apply records what a spilled run wrote of the ascending ranges in
// l.asc.
func (sp *spilled) apply(l *Loader) {
	for rg, w := range sp.asc {
		a := l.asc[rg]
		if a == nil {
			a = &ascending{}
			l.asc[rg] = a
		}
		a.tables = append(a.tables, w.tables...)
		a.last = w.last
	}
	sp.asc = nil
}

// writeAscending writes ents, the entries of ascending range rg of run
// r, into tables named after name, after checking that
// they follow what earlier runs wrote of the range. It reads l.asc and
// writes nothing of l but its files.
func (l *Loader) writeAscending(r *loadRun, rg int, ents []runEnt, name string) ([]string, error) {
	if len(ents) == 0 {
		return nil, nil
	}
	if err := l.asc[rg].follows(r.key(&ents[0])); err != nil {
		return nil, err
	}
	m := tableMerge{l: l, name: name}
	for i := range ents {
		e := r.entry(&ents[i])
		if e.posting {
			return m.tables, fmt.Errorf("%w: posting list %q among a load's records", ErrCorrupt, e.key)
		}
		if err := m.add(e.key, e.value); err != nil {
			return m.tables, err
		}
	}
	return m.finish()
}

func (r *loadRun) spillRange(fs vfs.FS, path string, ents []runEnt) error {
	f, err := fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr []byte
	sink := byte(0)
	defer func() { warmSink.Add(uint32(sink)) }()
	for i := range ents {
		sink += r.warm(ents, i+warmAhead)
		e := r.entry(&ents[i])
		hdr = binary.AppendUvarint(hdr[:0], uint64(len(e.key)))
		hdr = append(hdr, e.key...)
		hdr = append(hdr, tagOf(e.posting))
		hdr = binary.AppendUvarint(hdr, uint64(len(e.value)))
		if _, err := w.Write(hdr); err != nil {
			f.Close()
			return err
		}
		if _, err := w.Write(e.value); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func tagOf(posting bool) byte {
	if posting {
		return tagPosting
	}
	return tagPlain
}

// runSource yields a run's entries in key order: a spilled file, or the
// last run, still in memory.
type runSource struct {
	order int // the run's position: later runs win and hold later numbers
	cur   runEntry
	run   *loadRun // in memory: ents are run's
	ents  []runEnt
	r     *bufio.Reader // spilled
	f     vfs.File
	buf   []byte // a spilled run's current entry: its key, tag and value
}

// next moves to the next entry; false at the end. A spilled run's entry
// that lies whole in the reader's buffer is read in place, without a
// copy: cur is valid until the next call.
func (s *runSource) next() (bool, error) {
	if s.r == nil {
		if len(s.ents) == 0 {
			return false, nil
		}
		s.cur, s.ents = s.run.entry(&s.ents[0]), s.ents[1:]
		return true, nil
	}
	if s.r.Buffered() == 0 {
		if _, err := s.r.Peek(1); err == io.EOF {
			return false, nil
		} else if err != nil {
			return false, err
		}
	}
	if b, _ := s.r.Peek(s.r.Buffered()); len(b) > 0 {
		if n, ok := s.inPlace(b); ok {
			_, err := s.r.Discard(n)
			return true, err
		}
	}
	return s.copied()
}

// inPlace reads the entry at the start of b into cur and returns its
// length, if b holds it whole.
func (s *runSource) inPlace(b []byte) (int, bool) {
	kl, k := binary.Uvarint(b)
	if k <= 0 || kl >= uint64(len(b)) || int(kl)+1+k >= len(b) {
		return 0, false
	}
	at := k + int(kl) + 1 // the tag is b[at-1]
	vl, v := binary.Uvarint(b[at:])
	if v <= 0 || vl > uint64(len(b)-at-v) {
		return 0, false
	}
	end := at + v + int(vl)
	s.cur = runEntry{key: b[k : at-1 : at-1], value: b[at+v : end : end], posting: b[at-1] == tagPosting}
	return end, true
}

// copied reads the next entry of a spilled run into buf.
func (s *runSource) copied() (bool, error) {
	kl, err := binary.ReadUvarint(s.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.buf = slices.Grow(s.buf[:0], int(kl)+1)[:kl+1]
	if _, err := io.ReadFull(s.r, s.buf); err != nil {
		return false, fmt.Errorf("run %d: %w", s.order+1, err)
	}
	vl, err := binary.ReadUvarint(s.r)
	if err != nil {
		return false, fmt.Errorf("run %d: %w", s.order+1, err)
	}
	s.buf = slices.Grow(s.buf, int(vl))[:int(kl)+1+int(vl)]
	if _, err := io.ReadFull(s.r, s.buf[kl+1:]); err != nil {
		return false, fmt.Errorf("run %d: %w", s.order+1, err)
	}
	s.cur = runEntry{key: s.buf[:kl:kl], value: s.buf[kl+1:], posting: s.buf[kl] == tagPosting}
	return true, nil
}

// sources is a heap of runs by (current key, run order). It is typed
// rather than container/heap's: the merge moves it once per entry of
// every run, and the interface calls were most of its cost.
type sources []*runSource

func (h sources) less(i, j int) bool {
	if c := bytes.Compare(h[i].cur.key, h[j].cur.key); c != 0 {
		return c < 0
	}
	return h[i].order < h[j].order
}

func (h sources) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// down moves h[i] down to its place.
func (h sources) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if r := c + 1; r < len(h) && h.less(r, c) {
			c = r
		}
		if !h.less(c, i) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// loadTableBytes is where merge starts a new sstable: the tables Pebble
// compacts itself are of this order.
const loadTableBytes = 128 << 20

// merge merges the spilled runs and the last one into sstables of
// ascending, non-overlapping key ranges, and returns their paths: the
// ranges (rangeOf) on GOMAXPROCS goroutines, each into tables of its
// own. A posting list is the concatenation of its runs' numbers ORed
// with the committed list of its key, read by a cursor that moves
// forward over the store's index keys as the merge does.
func (l *Loader) merge() ([]string, error) {
	last := l.run.sort()
	var out []string
	for rg, a := range l.asc {
		out = append(out, a.tables...)
		if ents := last[rg]; len(ents) > 0 {
			if err := a.follows(l.run.key(&ents[0])); err != nil {
				return out, err
			}
		}
	}
	ranges := slices.Collect(maps.Keys(last))
	for _, sp := range l.runs {
		for r := range sp.ranges {
			if _, ok := last[r]; !ok {
				last[r] = nil
				ranges = append(ranges, r)
			}
		}
	}
	// A derived family's range is written by the goroutine that merges
	// the range it is derived from, once that is done; its runs hold none
	// of its keys.
	from, to := -1, -1
	if l.derive != nil {
		t, f := l.derive.Derived()
		from, to = rangeOf([]byte{IndexPrefix, f}), rangeOf([]byte{IndexPrefix, t})
		if _, ok := last[to]; ok {
			return out, fmt.Errorf("%w: a load's run holds keys of the derived family %q", ErrCorrupt, t)
		}
		if _, ok := last[from]; ok {
			last[to] = nil
			ranges = append(ranges, to)
		}
	}
	slices.Sort(ranges)
	view := l.s.kv.newView()
	defer view.close()
	tables := make([][]string, len(ranges))
	errs := make([]error, len(ranges))
	toAt := slices.Index(ranges, to)
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for _, i := range l.largestFirst(ranges, last) {
		r := ranges[i]
		if r == to {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if r != from {
				tables[i], errs[i] = l.mergeRange(view, r, last[r], nil)
				return
			}
			d := newDerivedSet()
			if tables[i], errs[i] = l.mergeRange(view, r, last[r], d); errs[i] == nil && toAt >= 0 {
				tables[toAt], errs[toAt] = l.writeDerived(view, to, d)
			}
		}()
	}
	wg.Wait()
	for i := range tables {
		out = append(out, tables[i]...)
		if errs[i] != nil {
			return out, errs[i]
		}
	}
	return out, nil
}

// largestFirst returns the places in ranges of the ranges to merge, the
// one with the most entries first: the equality postings' range takes
// about as long as all the others together, and started last, in key
// order, it left one core idle for most of its time. (On 1,000,000
// manifests: the merge took 7.5 s, the equality postings 5.4 s of it.)
func (l *Loader) largestFirst(ranges []int, last map[int][]runEnt) []int {
	size := make([]int, len(ranges))
	order := make([]int, len(ranges))
	for i, r := range ranges {
		order[i], size[i] = i, len(last[r])
		for _, sp := range l.runs {
			size[i] += sp.ranges[r]
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return size[b] - size[a] })
	return order
}

// mergeRange merges range r of the spilled runs and last, the last
// run's entries of the range, into tables; with d, it gathers there the
// posting lists derived from the range's.
func (l *Loader) mergeRange(view *view, r int, last []runEnt, d *derivedSet) ([]string, error) {
	fs := l.s.kv.fs()
	h := make(sources, 0, len(l.runs)+1)
	defer func() {
		for _, s := range h {
			if s.f != nil {
				s.f.Close()
			}
		}
	}()
	for i, sp := range l.runs {
		if sp.ranges[r] == 0 {
			continue
		}
		f, err := fs.Open(rangePath(sp.path, r))
		if err != nil {
			return nil, err
		}
		h = append(h, &runSource{order: i, f: f, r: bufio.NewReaderSize(f, 1<<20)})
	}
	h = append(h, &runSource{order: len(l.runs), run: l.run, ents: last})
	live := h[:0]
	for _, s := range h {
		ok, err := s.next()
		if err != nil {
			return nil, err
		}
		if ok {
			live = append(live, s)
		} else if s.f != nil {
			s.f.Close()
		}
	}
	h = live
	h.init()

	m, err := l.newTableMerge(view, r)
	if err != nil {
		return nil, err
	}
	defer m.cur.it.Close()
	var nums []uint32
	// A spilled run reads each entry into the same buffer: the key and a
	// plain value are copied before the run moves on.
	var key, plain []byte
	for len(h) > 0 {
		e := h[0].cur
		key = append(key[:0], e.key...)
		posting := e.posting
		nums = nums[:0]
		if posting {
			if nums, err = appendNumbers(nums, e.value); err != nil {
				return m.tables, err
			}
		} else {
			plain = append(plain[:0], e.value...)
		}
		if err := advance(&h); err != nil {
			return m.tables, err
		}
		for len(h) > 0 && bytes.Equal(h[0].cur.key, key) {
			next := h[0].cur
			switch {
			case next.posting != posting:
				return m.tables, fmt.Errorf("%w: key %q is both a posting list and a plain value in a load", ErrCorrupt, key)
			case next.posting:
				if nums, err = appendNumbers(nums, next.value); err != nil {
					return m.tables, err
				}
			default:
				plain = append(plain[:0], next.value...) // the later run's value wins
			}
			if err := advance(&h); err != nil {
				return m.tables, err
			}
		}
		value := plain
		if posting {
			if d != nil {
				d.add(l.derive, key, nums)
			}
			if value, err = m.posting(key, nums); err != nil {
				return m.tables, err
			}
		}
		if err := m.add(key, value); err != nil {
			return m.tables, err
		}
	}
	return m.finish()
}

// derivedSet gathers the posting lists a merge derives (IndexDeriver)
// from the lists it writes. Those come in key order, so consecutive ones
// mostly derive the same keys: the last few are looked up before the
// map.
type derivedSet struct {
	lists  map[string]*derivedList
	recent [4]*derivedList
	next   int          // where the next list found in the map goes in recent
	nums   []uint32     // the list being derived from, for fn
	fn     func([]byte) // adds nums to the derived list of a key
	buf    []byte       // the deriver's scratch for the derived keys
}

type derivedList struct {
	key string
	bm  *roaring.Bitmap
}

func newDerivedSet() *derivedSet {
	d := &derivedSet{lists: map[string]*derivedList{}}
	d.fn = func(key []byte) { d.list(key).AddMany(d.nums) }
	return d
}

// add adds nums, the list at key, to the lists derived from key.
func (d *derivedSet) add(by IndexDeriver, key []byte, nums []uint32) {
	d.nums = nums
	d.buf = by.Derive(key, d.buf, d.fn)
	d.nums = nil
}

// list returns the derived list of key, empty at first.
func (d *derivedSet) list(key []byte) *roaring.Bitmap {
	for _, r := range d.recent {
		if r != nil && r.key == string(key) {
			return r.bm
		}
	}
	l, ok := d.lists[string(key)]
	if !ok {
		l = &derivedList{string(key), roaring.New()} // the key's one copy, shared by the map and recent
		d.lists[l.key] = l
	}
	d.recent[d.next] = l
	d.next = (d.next + 1) % len(d.recent)
	return l.bm
}

// writeDerived writes the lists of d, the keys of range r, into tables,
// each ORed with the store's list at its key.
func (l *Loader) writeDerived(view *view, r int, d *derivedSet) ([]string, error) {
	if len(d.lists) == 0 {
		return nil, nil
	}
	m, err := l.newTableMerge(view, r)
	if err != nil {
		return nil, err
	}
	defer m.cur.it.Close()
	for _, k := range slices.Sorted(maps.Keys(d.lists)) {
		key := []byte(k)
		if rangeOf(key) != r {
			return m.tables, fmt.Errorf("%w: derived key %q outside its family", ErrCorrupt, key)
		}
		value, err := m.postingBits(key, d.lists[k].bm)
		if err != nil {
			return m.tables, err
		}
		if err := m.add(key, value); err != nil {
			return m.tables, err
		}
	}
	return m.finish()
}

// advance moves the heap's top run to its next entry.
func advance(h *sources) error {
	ok, err := (*h)[0].next()
	if err != nil {
		return err
	}
	if ok {
		h.down(0)
		return nil
	}
	s, n := (*h)[0], len(*h)-1
	(*h)[0], (*h)[n] = (*h)[n], nil
	*h = (*h)[:n]
	h.down(0)
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	return nil
}

// joinCursor reads the committed index keys a merge asks for, in
// ascending order, as a merge join: a key below the one the iterator
// stands on is not there, and costs no seek. Most of a load's posting
// keys are new (all of them in a new store, whose index is empty), and
// a seek for each cost a tenth of the merge.
type joinCursor struct {
	it      *pebble.Iterator
	ok      bool // the iterator stands on a key
	started bool
}

// seek appends the value of key to dst when the store has key; keys come
// in ascending order.
func (c *joinCursor) seek(key, dst []byte) ([]byte, bool, error) {
	if !c.started || c.ok && bytes.Compare(c.it.Key(), key) < 0 {
		c.ok, c.started = c.it.SeekGE(key), true
	}
	if !c.ok {
		return dst, false, readError(key, c.it.Error())
	}
	if !bytes.Equal(c.it.Key(), key) {
		return dst, false, nil
	}
	v, err := c.it.ValueAndErr()
	if err != nil {
		return dst, false, readError(key, err)
	}
	return append(dst, v...), true, nil
}

// tableMerge writes the merged keys into a sequence of sstables.
type tableMerge struct {
	l      *Loader
	name   string // the tables' names start so
	index  bool   // the keys are the index family's
	cur    *joinCursor
	t      *tableWriter
	tables []string
	old    []byte
	val    []byte // posting's value, until the next key
}

// posting returns the stored value of the posting list at key: nums
// (ascending) ORed with the committed list there.
func (m *tableMerge) posting(key []byte, nums []uint32) ([]byte, error) {
	bm, err := m.committed(key)
	if err != nil {
		return nil, err
	}
	if bm == nil {
		var ok bool
		// The table copies the value: the buffer serves the next key.
		if m.val, ok = encodeSortedOperand(m.val[:0], nums); ok {
			return m.val, nil
		}
		bm = roaring.New()
	}
	bm.AddMany(nums)
	return encodeOperand(nil, bm, nil)
}

// postingBits is posting of the list bm, which it may change.
func (m *tableMerge) postingBits(key []byte, bm *roaring.Bitmap) ([]byte, error) {
	old, err := m.committed(key)
	if err != nil {
		return nil, err
	}
	if old != nil {
		bm.Or(old)
	}
	return encodeOperand(nil, bm, nil)
}

// committed returns the store's posting list at key, nil when it has
// none; keys come in ascending order (joinCursor).
func (m *tableMerge) committed(key []byte) (*roaring.Bitmap, error) {
	var found bool
	var err error
	if m.old, found, err = m.cur.seek(key, m.old[:0]); err != nil || !found {
		return nil, err
	}
	bm, err := decodeBitmap(m.old)
	if err != nil {
		return nil, fmt.Errorf("posting list %q: %w", key, err)
	}
	return bm, nil
}

func (m *tableMerge) add(key, value []byte) error {
	if m.t != nil && m.t.bytes >= loadTableBytes {
		if err := m.t.close(); err != nil {
			return err
		}
		m.t = nil
	}
	if m.t == nil {
		path := filepath.Join(m.l.dir, fmt.Sprintf("%s-%06d.sst", m.name, len(m.tables)+1))
		t, err := m.l.s.kv.newTable(path, m.index)
		if err != nil {
			return err
		}
		m.t, m.tables = t, append(m.tables, path)
	}
	return m.t.set(key, value)
}

// newTableMerge returns the writer of range r's tables, with a cursor
// over the store's index keys; the caller closes m.cur.it.
func (l *Loader) newTableMerge(view *view, r int) (*tableMerge, error) {
	it, err := view.snap.NewIter(&pebble.IterOptions{LowerBound: []byte{IndexPrefix}, UpperBound: []byte{IndexPrefix + 1}})
	if err != nil {
		return nil, err
	}
	return &tableMerge{l: l, cur: &joinCursor{it: it}, name: fmt.Sprintf("table-%d", r), index: r/257 == IndexPrefix}, nil
}

func (m *tableMerge) finish() ([]string, error) {
	if m.t != nil {
		if err := m.t.close(); err != nil {
			return nil, err
		}
	}
	return m.tables, nil
}
