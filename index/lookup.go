package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/cockroachdb/apd/v3"
)

// Paths returns the ids of the committed paths the pointer can resolve
// through, and whether every one of them matches exactly (no concrete
// array index folded into a *). It is PathsContext without a deadline.
func (ix *Index) Paths(ptr *canon.Pointer) (ids []uint32, exact bool) {
	ids, exact, _ = ix.PathsContext(context.Background(), ptr)
	return ids, exact
}

// PathsContext is Paths under a request's context. The dictionary holds
// every path any document ever had, so the walk over it checks ctx every
// pathsCheckEvery paths and returns ctx's error once it is done; nothing
// is remembered of an interrupted walk.
func (ix *Index) PathsContext(ctx context.Context, ptr *canon.Pointer) (ids []uint32, exact bool, err error) {
	key := ptr.String()
	ix.memoM.Lock()
	m, ok := ix.memo[key]
	ix.memoM.Unlock()
	if ok {
		return slices.Clone(m.ids), m.exact, nil
	}
	mt := newMatcher(ptr.Segments())
	exact = true
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for i, e := range ix.dict {
		if i%pathsCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, false, err
			}
		}
		switch mt.match(e.segs) {
		case exactMatch:
			ids = append(ids, e.id)
		case lossyMatch:
			ids, exact = append(ids, e.id), false
		}
	}
	// Stored under the read lock: a dictionary that grows after this
	// point (commitPath, under the write lock) empties the memo after.
	ix.memoM.Lock()
	if ix.memo == nil || len(ix.memo) >= pathsMemoMax {
		ix.memo = map[string]pathsMemo{}
	}
	ix.memo[key] = pathsMemo{slices.Clone(ids), exact}
	ix.memoM.Unlock()
	return ids, exact, nil
}

// pathsCheckEvery is how many dictionary paths Paths matches between two
// looks at its context: a path costs at most depth × segments steps, so
// this is well under a millisecond.
const pathsCheckEvery = 256

// pathsMemoMax bounds the Paths memo; it is emptied when full.
const pathsMemoMax = 4096

// ArrayChildren returns the ids of the array levels below the given paths
// (path/* for each path holding arrays).
func (ix *Index) ArrayChildren(ids []uint32) []uint32 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []uint32
	for _, id := range ids {
		// An id a sweep dropped after Paths gave it has no path: its
		// zero value, the root, would name the root's array level.
		p, ok := ix.paths[id]
		if !ok {
			continue
		}
		if child, ok := ix.ids[p.appendArray()]; ok {
			out = append(out, child)
		}
	}
	return out
}

// bitmap returns the posting list at key. The caller must not modify it:
// it may be the one the cache holds, shared by every query that reads it.
func (ix *Index) bitmap(key []byte) (*roaring.Bitmap, error) {
	if !cacheable(key) {
		return ix.r.Bitmap(key)
	}
	bm, gen := ix.cache.get(key)
	if bm != nil {
		return bm, nil
	}
	bm, err := ix.r.Bitmap(key)
	if err == nil {
		ix.cache.put(key, bm, gen)
	}
	return bm, err
}

// union ORs the bitmaps of key(id) over ids.
func (ix *Index) union(ids []uint32, key func(id uint32) []byte) (*roaring.Bitmap, error) {
	var out orInto
	for _, id := range ids {
		bm, err := ix.bitmap(key(id))
		if err != nil {
			return nil, err
		}
		out.or(bm)
	}
	return out.bitmap(), nil
}

// orInto unites posting lists without copying the first: a union of one
// list (a point query's universe is often one kind and one owner) is that
// list itself, shared with the cache; the second allocates the union, and
// every further one is ORed into it.
type orInto struct {
	bm    *roaring.Bitmap
	owned bool // bm is the union's own, not a list that may be shared
}

func (u *orInto) or(bm *roaring.Bitmap) {
	switch {
	case u.bm == nil:
		u.bm = bm
	case !u.owned:
		u.bm, u.owned = roaring.Or(u.bm, bm), true
	default:
		u.bm.Or(bm)
	}
}

// bitmap is the union, empty when nothing was ORed.
func (u *orInto) bitmap() *roaring.Bitmap {
	if u.bm == nil {
		return roaring.New()
	}
	return u.bm
}

// Exists returns the documents with a value at any of the paths.
func (ix *Index) Exists(ids []uint32) (*roaring.Bitmap, error) {
	return ix.union(ids, func(id uint32) []byte { return appendPathKey(nil, famExists, id) })
}

// Long returns the documents with strings at the paths too long for
// equality and trigram postings: lookups add them as lossy candidates.
func (ix *Index) Long(ids []uint32) (*roaring.Bitmap, error) {
	return ix.union(ids, func(id uint32) []byte { return appendPathKey(nil, famLong, id) })
}

// Eq returns the documents holding the scalar v at one of the paths, and
// whether that set is exact. Objects and arrays, long strings and numbers
// whose canonical form is not numerically v are looked up lossily.
func (ix *Index) Eq(ids []uint32, v any) (*roaring.Bitmap, bool, error) {
	val, exact := eqValue(v)
	if val == nil {
		bm, err := ix.Exists(ids)
		return bm, false, err
	}
	bm, err := ix.union(ids, func(id uint32) []byte { return append(appendPathKey(nil, famEq, id), val...) })
	if err != nil || exact {
		return bm, exact, err
	}
	long, err := ix.Long(ids)
	if err != nil {
		return nil, false, err
	}
	return roaring.Or(bm, long), false, nil
}

// eqValue returns the posting suffix of a scalar and whether the posting
// is exactly "equals v"; nil for values with no posting.
func eqValue(v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return []byte{typeNull}, true
	case bool:
		if v {
			return []byte{typeTrue}, true
		}
		return []byte{typeFalse}, true
	case string:
		if len(v) > maxEqString {
			return append([]byte{typeString}, v[:maxEqString]...), false
		}
		return append([]byte{typeString}, v...), true
	case canon.Number:
		c, err := canon.Canonicalize(nil, []byte(v), nil)
		if err != nil {
			return nil, false
		}
		return append([]byte{typeNumber}, c...), sameNumber(string(v), string(c))
	}
	return nil, false
}

// sameNumber reports whether two number texts have the same exact value.
func sameNumber(a, b string) bool {
	x, _, err1 := apd.NewFromString(a)
	y, _, err2 := apd.NewFromString(b)
	return err1 == nil && err2 == nil && x.Cmp(y) == 0
}

// NumberBounds bound a NumberRange. A nil end is open-ended; OpenLo and
// OpenHi leave the bound itself out (gt, lt), else it is in.
type NumberBounds struct {
	Lo, Hi         *apd.Decimal
	OpenLo, OpenHi bool
}

// NumberRange returns the documents with a number or decimal string
// within b at one of the paths. Both are keyed by their exact decimal
// value (AppendDecimalKey), so the answer is exact: "100.00" and 100 are
// one key, and 0.1 is not 0.1000000000000000055. The bounds must be
// finite.
func (ix *Index) NumberRange(ids []uint32, b NumberBounds) (*roaring.Bitmap, error) {
	r, err := ix.NumberRangeIn(ids, b, nil)
	return r.Docs, err
}

// NumberRangeIn is NumberRange exact among the documents of within
// only (nil: every document), which lets more paths be read by their
// complement (Range).
func (ix *Index) NumberRangeIn(ids []uint32, b NumberBounds, within *roaring.Bitmap) (Range, error) {
	lo, end, err := b.keys()
	if err != nil {
		return Range{}, err
	}
	return ix.rangeScan(ids, typeNumber, lo, end, within)
}

// keys returns the range of decimal keys b spans: from lo (inclusive,
// nil: from the lowest) up to end (exclusive).
func (b NumberBounds) keys() (lo, end []byte, err error) {
	if b.Lo != nil {
		k, err := AppendDecimalKey(nil, b.Lo)
		if err != nil {
			return nil, nil, err
		}
		if lo = k; b.OpenLo {
			lo = decimalKeyAfter(lo)
		}
	}
	end = []byte{rangeTop} // above every decimal key's class byte
	if b.Hi != nil {
		k, err := AppendDecimalKey(nil, b.Hi)
		if err != nil {
			return nil, nil, err
		}
		if end = k; !b.OpenHi {
			end = decimalKeyAfter(end)
		}
	}
	return lo, end, nil
}

// rangeTop is the end of a range open above: no sortable value of
// either type starts with it.
const rangeTop = 0xff

// Range is what a range lookup found, and how. Where no document has
// two values of the range's type at a path, those with a value in the
// range are those with a value of the type there (the typed posting)
// less those with a value outside it; a path is read that way when the
// outside holds at most half the documents of the range by its buckets'
// counts (complementAt): an instant before a date most documents precede is
// the few after it, subtracted.
//
// A range exact among every document is kept in the index's cache and
// brought up to date by each commit, so the same range asked again, by
// any reader, is not read again: Docs is read-only, shared by the
// queries that ask it.
type Range struct {
	Docs *roaring.Bitmap
	// Complemented is how many of the paths were read by the complement.
	Complemented int
}

// decimalKeyAfter turns the decimal key k into the smallest byte string
// above it: decimal keys are prefix-free, so every key that sorts after k
// differs from it within k's length and sorts after k+"\x00" too.
func decimalKeyAfter(k []byte) []byte { return append(k, 0) }

// InstantBounds bound an InstantRange. A nil end is open-ended; OpenLo
// and OpenHi leave the bound itself out (after, before), else it is in.
type InstantBounds struct {
	Lo, Hi         *canon.Instant
	OpenLo, OpenHi bool
}

// InstantRange returns the documents with an RFC 3339 instant within b at
// one of the paths. Instants are indexed to every fractional digit, so the
// answer is exact.
func (ix *Index) InstantRange(ids []uint32, b InstantBounds) (*roaring.Bitmap, error) {
	r, err := ix.InstantRangeIn(ids, b, nil)
	return r.Docs, err
}

// InstantRangeIn is InstantRange exact among the documents of within
// only (nil: every document), which lets more paths be read by their
// complement (Range).
func (ix *Index) InstantRangeIn(ids []uint32, b InstantBounds, within *roaring.Bitmap) (Range, error) {
	lo, end := b.keys()
	return ix.rangeScan(ids, typeInst, lo, end, within)
}

// keys returns the range of instant keys b spans: from lo (inclusive,
// nil: from the lowest) up to end (exclusive).
func (b InstantBounds) keys() (lo, end []byte) {
	if b.Lo != nil {
		if lo = appendSortableInstant(nil, *b.Lo); b.OpenLo {
			lo = instantKeyAfter(lo)
		}
	}
	end = []byte{rangeTop} // above every instant of years 0000-9999
	if b.Hi != nil {
		if end = appendSortableInstant(nil, *b.Hi); !b.OpenHi {
			end = instantKeyAfter(end)
		}
	}
	return lo, end
}

// rangeScan returns the documents with a value of type typ in [lo, end)
// at the paths ids: from the index's cache (rangeResults), or read
// (scanRange) and kept there when the answer is exact among every
// document, whatever within.
func (ix *Index) rangeScan(ids []uint32, typ byte, lo, end []byte, within *roaring.Bitmap) (Range, error) {
	key := rangeKey(ids, typ, lo, end)
	r, ok, gen := ix.cache.getRange(key)
	if ok {
		return r, nil
	}
	r, amongAll, err := ix.scanRange(ids, typ, lo, end, within)
	if err == nil && amongAll {
		ix.cache.putRange(key, &rangeResult{ids: slices.Clone(ids), typ: typ, lo: bytes.Clone(lo), end: bytes.Clone(end), r: r}, gen)
	}
	return r, err
}

// scanRange ORs the range postings of type typ at the paths ids from the
// key suffix lo (inclusive) up to end (exclusive). A bucket (bucketLevels)
// that lies wholly inside the range contributes its one bitmap; a bucket
// the range cuts, at either end, is read at the next level, and at the
// last level value by value. So a range costs about the buckets it spans,
// whatever the number of distinct values in it. Every range of keys it
// reads goes through one iterator, and the postings into one union. A
// path whose complement is the smaller read is read by it (complementAt);
// the answer is then exact among the documents of within (nil: all), and
// amongAll says whether it is exact among every document all the same.
func (ix *Index) scanRange(ids []uint32, typ byte, lo, end []byte, within *roaring.Bitmap) (r Range, amongAll bool, err error) {
	rs, err := ix.r.Ranges()
	if err != nil {
		return Range{}, false, err
	}
	sc := rangeScanner{rs: rs, typ: typ, levels: bucketLevels(typ)}
	var complements []*roaring.Bitmap
	amongAll = true
	for _, id := range ids {
		var c *roaring.Bitmap
		var all bool
		if c, all, err = ix.complementAt(&sc, id, lo, end, within); err != nil {
			break
		}
		if c != nil {
			complements = append(complements, c)
			r.Complemented++
			amongAll = amongAll && all
			continue
		}
		if err = sc.buckets(id, 0, lo, end); err != nil {
			break
		}
	}
	if cerr := rs.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Range{}, false, err
	}
	if r.Complemented == len(ids) && len(complements) == 1 {
		r.Docs = complements[0] // the union would copy a bitmap the size of the path's
		return r, amongAll, nil
	}
	r.Docs = sc.out.Bitmap()
	for _, c := range complements {
		r.Docs.Or(c)
	}
	return r, amongAll, nil
}

// complementAt returns the documents with a value in [lo, end) at path
// id as those with a value of the type there less those with one
// outside the range, when that is exact and the outside is the smaller
// read; nil when the range is to be read itself. It is exact for a
// document with one value of the type there, so not where a document of
// within (every document, if nil) has several; amongAll says that no
// document has several, so that the answer is exact among every one.
func (ix *Index) complementAt(sc *rangeScanner, id uint32, lo, end []byte, within *roaring.Bitmap) (c *roaring.Bitmap, amongAll bool, err error) {
	multi, err := ix.bitmap(append(appendPathKey(nil, famMulti, id), sc.typ))
	if err != nil {
		return nil, false, err
	}
	if within == nil && !multi.IsEmpty() || within != nil && multi.Intersects(within) {
		return nil, false, nil
	}
	// The complement also copies the typed posting: it is taken when the
	// outside is at most half the range, so that a range about as large
	// as its outside, as in a small store, is read as it was.
	in, out, err := sc.estimate(id, lo, end)
	if err != nil || 2*out >= in {
		return nil, false, err
	}
	typed, err := ix.bitmap(append(appendPathKey(nil, famTyped, id), sc.typ))
	if err != nil {
		return nil, false, err
	}
	side := rangeScanner{rs: sc.rs, typ: sc.typ, levels: sc.levels}
	if lo != nil {
		if err := side.buckets(id, 0, nil, lo); err != nil {
			return nil, false, err
		}
	}
	if !bytes.Equal(end, []byte{rangeTop}) {
		if err := side.buckets(id, 0, end, []byte{rangeTop}); err != nil {
			return nil, false, err
		}
	}
	return minus(typed, side.out.Bitmap()), multi.IsEmpty(), nil
}

// minus returns typed less outside. A path most documents have is
// mostly run containers (a run per container where every document has
// it), and roaring's AndNot turns a run container less an array one
// into two bitmap containers, 16 KiB per 65,536 documents, to make a
// third; so up to fewRemovals documents are removed from a copy one by
// one instead, which leaves the runs runs for the intersections after.
func minus(typed, outside *roaring.Bitmap) *roaring.Bitmap {
	if outside.GetCardinality() > fewRemovals {
		return roaring.AndNot(typed, outside)
	}
	out := typed.Clone()
	it := outside.Iterator()
	for it.HasNext() {
		out.Remove(it.Next())
	}
	return out
}

// fewRemovals bounds minus's removals one by one: each splits a run,
// at a cost that grows with the runs of its container.
const fewRemovals = 4096

// rangeScanner is one rangeScan's reads: the iterator they share, the
// union they add to, and buffers for the bounds of each range they read
// (Visit copies them, so a nested read may take them over).
type rangeScanner struct {
	rs          *store.IndexRanges
	typ         byte
	levels      []int
	out         store.PostingUnion
	start, stop []byte
	after       []byte // a bucket's prefixEnd
}

// buckets adds the documents with a value in [lo, end) at path id, from
// the buckets of the level and those below.
func (sc *rangeScanner) buckets(id uint32, level int, lo, end []byte) error {
	if level == len(sc.levels) {
		return sc.values(id, lo, end)
	}
	n := sc.levels[level]
	if len(lo) > n && len(end) > n && bytes.Equal(lo[:n], end[:n]) {
		// The range lies inside one bucket of the level, which it cuts.
		return sc.buckets(id, level+1, lo, end)
	}
	// A range that starts inside lo's bucket, or ends inside end's, cuts
	// it: the next level reads it, without the bucket's own posting, the
	// largest the range meets and the costliest to read while merge
	// operands for it stand in several levels of the store.
	from, to := lo, end
	if len(lo) > n {
		if from = prefixEnd(lo[:n]); from == nil || bytes.Compare(from, end) > 0 {
			from = end
		}
		if err := sc.buckets(id, level+1, lo, from); err != nil {
			return err
		}
	}
	if len(end) > n && bytes.Compare(end[:n], from) > 0 {
		to = end[:n]
		if err := sc.buckets(id, level+1, to, end); err != nil {
			return err
		}
	}
	if bytes.Compare(from, to) >= 0 {
		return nil
	}
	return sc.between(id, level, from, to)
}

// between adds the documents with a value in [lo, end) at path id from
// the buckets of the level that lie inside it, and those below for the
// buckets it cuts.
func (sc *rangeScanner) between(id uint32, level int, lo, end []byte) error {
	sc.start = append(appendPathKey(sc.start[:0], famBucket, id), sc.typ, byte(level))
	n := len(sc.start)
	sc.stop = append(append(sc.stop[:0], sc.start...), end...)
	// No bucket below lo's own reaches lo: one that is not a prefix of lo
	// sorts wholly before it, and the one that is (zero) is a key below lo.
	sc.start = append(sc.start, rangeBucket(sc.levels[level], lo)...)
	var cut [][]byte // buckets the range cuts, read after the scan
	err := sc.rs.Visit(sc.start, sc.stop, func(key, value []byte) (bool, error) {
		b := key[n:]
		sc.after = appendPrefixEnd(sc.after[:0], b)
		if sc.after == nil || bytes.Compare(b, lo) < 0 || bytes.Compare(sc.after, end) > 0 {
			cut = append(cut, append([]byte(nil), b...))
			return true, nil
		}
		return true, sc.out.Add(value)
	})
	if err != nil {
		return err
	}
	for _, b := range cut {
		from, to := lo, end
		if bytes.Compare(b, from) > 0 {
			from = b
		}
		if after := prefixEnd(b); after != nil && bytes.Compare(after, to) < 0 {
			to = after
		}
		if err := sc.buckets(id, level+1, from, to); err != nil {
			return err
		}
	}
	return nil
}

// values adds the range postings of path id from the key suffix lo
// (inclusive) up to end (exclusive), one per value.
func (sc *rangeScanner) values(id uint32, lo, end []byte) error {
	sc.start = append(appendPathKey(sc.start[:0], famRange, id), sc.typ)
	sc.stop = append(append(sc.stop[:0], sc.start...), end...)
	sc.start = append(sc.start, lo...)
	return sc.rs.Visit(sc.start, sc.stop, func(_, value []byte) (bool, error) {
		return true, sc.out.Add(value)
	})
}

// estimate counts the documents of path id's buckets that lie inside
// [lo, end) and those outside it, from the coarsest level's counts
// (store.PostingCount: headers, nothing decoded). The buckets the range
// cuts count on both sides; while they could tip the comparison, their
// finer buckets are counted instead, down to the finest level. A
// document with values in several buckets counts in each.
func (sc *rangeScanner) estimate(id uint32, lo, end []byte) (in, out uint64, err error) {
	regions := [][2][]byte{{nil, nil}} // the whole coarsest level
	for level := range sc.levels {
		var cut uint64
		var next [][2][]byte
		for _, r := range regions {
			sc.start = append(appendPathKey(sc.start[:0], famBucket, id), sc.typ, byte(level))
			n := len(sc.start)
			if r[1] != nil {
				sc.stop = append(append(sc.stop[:0], sc.start...), r[1]...)
			} else {
				sc.stop = appendPrefixEnd(sc.stop[:0], sc.start)
			}
			sc.start = append(sc.start, r[0]...)
			err = sc.rs.Visit(sc.start, sc.stop, func(key, value []byte) (bool, error) {
				b := key[n:]
				sc.after = appendPrefixEnd(sc.after[:0], b)
				c := store.PostingCount(value)
				switch {
				case (lo == nil || bytes.Compare(b, lo) >= 0) && sc.after != nil && bytes.Compare(sc.after, end) <= 0:
					in += c
				case lo != nil && sc.after != nil && bytes.Compare(sc.after, lo) <= 0 || bytes.Compare(b, end) >= 0:
					out += c
				default:
					cut += c
					next = append(next, [2][]byte{bytes.Clone(b), bytes.Clone(sc.after)})
				}
				return true, nil
			})
			if err != nil {
				return 0, 0, err
			}
		}
		if in+cut <= out || out+cut <= in || level == len(sc.levels)-1 {
			return in + cut, out + cut, nil
		}
		regions = next
	}
	return in, out, nil
}

// prefixEnd returns the smallest byte string above every string that
// starts with b, or nil when there is none (b is all 0xff).
func prefixEnd(b []byte) []byte { return appendPrefixEnd(nil, b) }

// appendPrefixEnd is prefixEnd appended to dst (nil still when there is
// none).
func appendPrefixEnd(dst, b []byte) []byte {
	i := len(b) - 1
	for i >= 0 && b[i] == 0xff {
		i--
	}
	if i < 0 {
		return nil
	}
	return append(append(dst, b[:i]...), b[i]+1)
}

// Grams returns a superset of the documents with a string containing
// needle at one of the paths. At a text path (Config) those are the
// documents with every trigram of needle, plus those with strings there
// that have no trigrams (the no-gram posting); a needle shorter than a
// trigram is looked for in the path's trigram and short-string keys.
// Elsewhere the path's value dictionary answers: the equality postings of
// every distinct string there that contains needle, plus the documents
// with strings too long for one. An empty needle gives every document
// with a value there.
func (ix *Index) Grams(ids []uint32, needle string) (*roaring.Bitmap, error) {
	if needle == "" {
		return ix.Exists(ids)
	}
	text, other := ix.splitText(ids)
	out, err := ix.Long(other)
	if err != nil {
		return nil, err
	}
	out = out.Clone() // may be a cached list
	for _, id := range other {
		if err := ix.scanContaining(out, appendPathKey(nil, famEq, id), typeString, needle); err != nil {
			return nil, err
		}
	}
	for _, id := range text {
		gramsAt := ix.gramsAt
		if len(needle) < 3 {
			gramsAt = ix.shortAt
		}
		bm, err := gramsAt(id, needle)
		if err != nil {
			return nil, err
		}
		out.Or(bm)
	}
	bm, err := ix.union(text, func(id uint32) []byte { return appendPathKey(nil, famNoGram, id) })
	if err != nil {
		return nil, err
	}
	out.Or(bm)
	return out, nil
}

// GramsExact reports whether Grams(ids, needle) holds, among the
// documents of within, exactly those with a string containing needle at
// one of the paths: the value dictionary answers for every string there
// (no text path, whose trigrams are a superset, and no string of within
// too long for the dictionary), and the needle is not empty (which Grams
// answers with every value there). The caller's within is the reader's
// universe, so that exactness says nothing about documents it may not see.
func (ix *Index) GramsExact(ids []uint32, needle string, within *roaring.Bitmap) (bool, error) {
	if needle == "" {
		return false, nil
	}
	if text, _ := ix.splitText(ids); len(text) > 0 {
		return false, nil
	}
	long, err := ix.Long(ids)
	if err != nil {
		return false, err
	}
	return !long.Intersects(within), nil
}

// Matching returns a superset of the documents with a string at one of
// the paths for which test holds: the equality postings of every distinct
// string in the paths' value dictionary that test accepts, plus the
// documents with strings too long for the dictionary. Each distinct value
// is tested once, however many documents hold it, and no document is
// read; test should answer true when it cannot tell (a regex that timed
// out), so that the set stays a superset. It stops with ctx's error, or
// the first error test returns.
func (ix *Index) Matching(ctx context.Context, ids []uint32, test func(s []byte) (bool, error)) (*roaring.Bitmap, error) {
	out, err := ix.Long(ids)
	if err != nil {
		return nil, err
	}
	out = out.Clone() // may be a cached list
	for _, id := range ids {
		prefix := append(appendPathKey(nil, famEq, id), typeString)
		end := append(append([]byte(nil), prefix...), 0xff) // no UTF-8 byte is 0xff
		n := 0
		err := ix.r.Scan(prefix, end, func(key, value []byte) error {
			if n++; n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if ok, err := test(key[len(prefix):]); err != nil || !ok {
				return err
			}
			bm, err := decodePosting(value)
			out.Or(bm)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// splitText parts path ids into text paths and the others.
func (ix *Index) splitText(ids []uint32) (text, other []uint32) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for _, id := range ids {
		if ix.text.isText(id, []byte(ix.paths[id])) {
			text = append(text, id)
		} else {
			other = append(other, id)
		}
	}
	return text, other
}

// shortAt ORs the trigram and short-string postings of path id whose text
// contains needle (shorter than a trigram).
func (ix *Index) shortAt(id uint32, needle string) (*roaring.Bitmap, error) {
	out := roaring.New()
	if err := ix.scanContaining(out, appendPathKey(nil, famGram, id), 0, needle); err != nil {
		return nil, err
	}
	if err := ix.scanContaining(out, appendPathKey(nil, famShort, id), 0, needle); err != nil {
		return nil, err
	}
	return out, nil
}

// scanContaining ORs into out the posting lists under prefix (followed by
// typ unless it is 0) whose remaining key text contains needle.
func (ix *Index) scanContaining(out *roaring.Bitmap, prefix []byte, typ byte, needle string) error {
	if typ != 0 {
		prefix = append(prefix, typ)
	}
	end := append(append([]byte(nil), prefix...), 0xff) // no UTF-8 byte is 0xff
	n := []byte(needle)
	return ix.r.Scan(prefix, end, func(key, value []byte) error {
		if !bytes.Contains(key[len(prefix):], n) {
			return nil
		}
		bm, err := decodePosting(value)
		out.Or(bm)
		return err
	})
}

func (ix *Index) gramsAt(id uint32, needle string) (*roaring.Bitmap, error) {
	var acc *roaring.Bitmap
	for i := 0; i+3 <= len(needle); i++ {
		bm, err := ix.bitmap(append(appendPathKey(nil, famGram, id), needle[i:i+3]...))
		if err != nil {
			return nil, err
		}
		if acc == nil {
			acc = bm
		} else {
			acc = roaring.And(acc, bm) // neither may be modified (bitmap)
		}
		if acc.IsEmpty() {
			break
		}
	}
	return acc, nil
}

// All returns every document.
func (ix *Index) All() (*roaring.Bitmap, error) { return ix.bitmap(appendFamily(nil, famAll)) }

// Kinds returns the documents of any of the kinds.
func (ix *Index) Kinds(kinds []canon.Kind) (*roaring.Bitmap, error) {
	var out orInto
	for _, k := range kinds {
		bm, err := ix.bitmap(append(appendFamily(nil, famKind), k...))
		if err != nil {
			return nil, err
		}
		out.or(bm)
	}
	return out.bitmap(), nil
}

// Owners returns the documents of any of the owners.
func (ix *Index) Owners(owners []string) (*roaring.Bitmap, error) {
	var out orInto
	for _, o := range owners {
		bm, err := ix.bitmap(append(appendFamily(nil, famOwner), o...))
		if err != nil {
			return nil, err
		}
		out.or(bm)
	}
	return out.bitmap(), nil
}

// Public returns the public documents of any of the kinds: Owners
// ([store.Public]) ∩ Kinds(kinds), the universe every query of an
// anonymous reader computes from bitmaps as large as the store, and the
// shared part of every other reader's. It is kept in the posting cache,
// updated by each commit from its parts: one entry per list of
// kinds, that is per intent category, however many tenants read. The
// caller must not modify it.
func (ix *Index) Public(kinds []canon.Kind) (*roaring.Bitmap, error) {
	key := publicKey(kinds)
	bm, gen := ix.cache.get(key)
	if bm != nil {
		return bm, nil
	}
	byOwner, err := ix.Owners([]string{store.Public})
	if err != nil {
		return nil, err
	}
	byKind, err := ix.Kinds(kinds)
	if err != nil {
		return nil, err
	}
	bm = roaring.And(byOwner, byKind)
	parts := []string{string(append(appendFamily(nil, famOwner), store.Public...))}
	for _, k := range kinds {
		parts = append(parts, string(append(appendFamily(nil, famKind), k...)))
	}
	ix.cache.putDerived(key, bm, gen, parts)
	return bm, nil
}

// publicKey is Public's cache key: a prefix no posting key has (they
// begin with store.IndexPrefix), then each kind with its length, so no
// two lists share a key.
func publicKey(kinds []canon.Kind) []byte {
	key := make([]byte, 0, 64)
	key = append(key, 0, 'P')
	for _, k := range kinds {
		key = binary.AppendUvarint(key, uint64(len(k)))
		key = append(key, k...)
	}
	return key
}

func decodePosting(v []byte) (*roaring.Bitmap, error) { return store.DecodeBitmap(v) }
