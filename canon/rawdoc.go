package canon

// RawDoc is the canonical bytes of one document together with a table of
// its root object's members (raw key, raw value), so that several pointers
// resolved over the same document skim its top level once instead of once
// each. RFC 8785 sorts members, so a lookup of a late member ("tool" after
// "actions", "pricing", …) would otherwise skip every member before it,
// every time.
//
// The table is built lazily, as far as lookups need it: a lookup of an
// early member scans no further than that member, and later lookups pick
// up where the scan stopped. A document whose root is not an object has no
// table; everything then works on the bytes as before.
//
// Reset a RawDoc to reuse it for another document: its table's storage is
// kept, so a reused RawDoc costs no allocation once it has seen a document
// with as many top-level members. A RawDoc is NOT safe for concurrent use
// (lookups extend the table). It refers to the bytes it was given until
// the next Reset; they must not change meanwhile. The zero RawDoc holds an
// empty document.
type RawDoc struct {
	b       []byte
	members []rawEntry
	next    int  // offset of the next member's key not yet in members; -1 when the scan is over
	broken  bool // the scan stopped on bytes memberAt could not read as a member
}

// rawEntry is one member of the root object.
type rawEntry struct{ key, value []byte }

// NewRawDoc returns a RawDoc over b.
func NewRawDoc(b []byte) *RawDoc {
	d := new(RawDoc)
	d.Reset(b)
	return d
}

// Reset makes d a RawDoc over b, forgetting the previous document (but
// keeping the table's storage). Reset(nil) drops every reference to it.
func (d *RawDoc) Reset(b []byte) {
	clear(d.members)
	d.members = d.members[:0]
	d.b, d.next, d.broken = b, -1, false
	if d.object() {
		d.next = 1
	}
}

// Bytes returns the document's bytes, as given to Reset.
func (d *RawDoc) Bytes() []byte { return d.b }

// object reports whether the root is an object, so that the table applies.
func (d *RawDoc) object() bool { return len(d.b) >= 2 && d.b[0] == '{' }

// member returns root member i, scanning as far as it needs; ok is false
// past the last member (or past malformed bytes).
func (d *RawDoc) member(i int) (key, value []byte, ok bool) {
	for i >= len(d.members) {
		if !d.scanOne() {
			return nil, nil, false
		}
	}
	e := &d.members[i]
	return e.key, e.value, true
}

// scanOne adds the next member to the table, reading it exactly as
// memberAt does for the walks over bytes, so the table holds the members
// they would meet.
func (d *RawDoc) scanOne() bool {
	if d.next < 0 {
		return false
	}
	key, value, next := memberAt(d.b, d.next)
	if value == nil {
		d.broken = d.next < len(d.b) && d.b[d.next] == '"'
		d.next = -1
		return false
	}
	d.members = append(d.members, rawEntry{key, value})
	d.next = next
	return true
}

// lookup is rawMember over the root: the first member named name.
func (d *RawDoc) lookup(name string) (key, value []byte, ok bool) {
	for i := 0; ; i++ {
		k, v, ok := d.member(i)
		if !ok {
			return nil, nil, false
		}
		if rawNameEquals(k, name) {
			return k, v, true
		}
	}
}

// EachMember is EachMember(d.Bytes(), fn), through the table: fn gets the
// raw key (quoted) and raw value of every root member, in order, until it
// returns false. It calls fn with nothing when the root is not an object.
func (d *RawDoc) EachMember(fn func(key, value []byte) bool) {
	for d.scanOne() {
	}
	if d.broken {
		// EachMember reads a member with an empty value where memberAt
		// stops; malformed bytes take the slow road to agree with it.
		EachMember(d.b, fn)
		return
	}
	for i := range d.members {
		if e := &d.members[i]; !fn(e.key, e.value) {
			return
		}
	}
}

// ResolveRawDoc is p.ResolveRaw(d.Bytes(), fn), with the first segment
// taken from d's table of root members.
func (p *Pointer) ResolveRawDoc(d *RawDoc, fn func(v []byte) bool) bool {
	if !p.HasWildcard() {
		v, ok := p.lookupRawDoc(d)
		return !ok || fn(v)
	}
	w := rawWalkers.Get().(*RawWalker)
	ok := w.walk(p, d.b, d, fn, nil)
	rawWalkers.Put(w)
	return ok
}

// lookupRawDoc is lookupRaw with the first step through d's table.
func (p *Pointer) lookupRawDoc(d *RawDoc) ([]byte, bool) {
	if p == nil || len(p.segs) == 0 || !d.object() {
		return p.lookupRaw(d.b)
	}
	_, b, ok := d.lookup(p.segs[0].Name)
	if !ok {
		return nil, false
	}
	for i := 1; i < len(p.segs); i++ {
		if b, ok = rawChild(b, &p.segs[i]); !ok {
			return nil, false
		}
	}
	return b, true
}
