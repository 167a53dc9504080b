package canon

import (
	"bytes"
	"encoding/binary"
)

// Members is the canonical bytes of one document together with a table of
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
// Reset a Members value to reuse it for another document: its table's storage is
// kept, so a reused Members costs no allocation once it has seen a document
// with as many top-level members. A Members value is NOT safe for concurrent use
// (lookups extend the table). It refers to the bytes it was given until
// the next Reset; they must not change meanwhile. The zero Members holds an
// empty document.
type Members struct {
	b       []byte
	members []rawEntry
	next    int  // offset of the next member's key not yet in members; -1 when the scan is over
	broken  bool // the scan stopped on bytes memberAt could not read as a member

	// Members read from the end (ResetCanonical): tail holds them last
	// member first, and front is the offset of the earliest one's key
	// (of the root's closing brace while tail is empty). When the scan
	// from the start reaches front, tail joins members.
	canonical bool
	tail      []rawEntry
	front     int
}

// rawEntry is one member of the root object.
type rawEntry struct{ key, value []byte }

// NewMembers returns a Members value over b.
func NewMembers(b []byte) *Members {
	d := new(Members)
	d.Reset(b)
	return d
}

// Reset makes d a Members value over b, forgetting the previous document (but
// keeping the table's storage). Reset(nil) drops every reference to it.
func (d *Members) Reset(b []byte) {
	clear(d.members)
	clear(d.tail)
	d.members, d.tail = d.members[:0], d.tail[:0]
	d.b, d.next, d.broken, d.canonical = b, -1, false, false
	if d.object() {
		d.next, d.front = 1, len(b)-1
	}
}

// ResetCanonical is Reset for bytes in RFC 8785 form (a stored
// document's): members sorted by name, each name once. A lookup of a name
// that sorts late may then read the members from the end, where such a
// name lies: "tool" in a manifest is the next to last of its members and
// follows four fifths of its bytes. Either way a lookup finds the same
// member; only what it skims differs. Bytes in another form are read
// without a panic, but a late name may then be found where reading from
// the start would stop.
func (d *Members) ResetCanonical(b []byte) {
	d.Reset(b)
	d.canonical = true
}

// Bytes returns the document's bytes, as given to Reset.
func (d *Members) Bytes() []byte { return d.b }

// object reports whether the root is an object, so that the table applies.
func (d *Members) object() bool { return len(d.b) >= 2 && d.b[0] == '{' }

// member returns root member i, scanning as far as it needs; ok is false
// past the last member (or past malformed bytes).
func (d *Members) member(i int) (key, value []byte, ok bool) {
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
func (d *Members) scanOne() bool {
	if d.next < 0 {
		return false
	}
	if len(d.tail) > 0 && d.next >= d.front {
		if d.next > d.front { // the two scans disagree: keep the forward one's
			clear(d.tail)
			d.tail = d.tail[:0]
		} else {
			for i := len(d.tail) - 1; i >= 0; i-- {
				d.members = append(d.members, d.tail[i])
			}
			clear(d.tail)
			d.tail, d.next = d.tail[:0], -1
			return true
		}
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
func (d *Members) lookup(name string) (key, value []byte, ok bool) {
	if d.canonical && lateName(name) {
		if d.next < 0 && !d.broken {
			// Every member is in the table (a memo restores whole
			// tables): compare from the end, where a late name lies,
			// rather than touch the name of every member before it.
			return d.lastNamed(d.members, name)
		}
		if d.next >= 0 {
			for i := range d.tail {
				if e := &d.tail[i]; rawNameEquals(e.key, name) {
					return e.key, e.value, true
				}
			}
			if key, value, found, sure := d.lookupBack(name); sure {
				return key, value, found
			}
		}
	}
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

// lastNamed is the last of entries named name. A canonical object names
// each member once, so it is also the first: searched from the end, a
// late name is found comparing few names, each of which reads the
// document's bytes where the name lies.
func (d *Members) lastNamed(entries []rawEntry, name string) (key, value []byte, ok bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		if e := &entries[i]; rawNameEquals(e.key, name) {
			return e.key, e.value, true
		}
	}
	return nil, nil, false
}

// EachMember is EachMember(d.Bytes(), fn), through the table: fn gets the
// raw key (quoted) and raw value of every root member, in order, until it
// returns false. It calls fn with nothing when the root is not an object.
func (d *Members) EachMember(fn func(key, value []byte) bool) {
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

// ResolveMembers is p.ResolveRaw(d.Bytes(), fn), with the first segment
// taken from d's table of root members.
func (p *Pointer) ResolveMembers(d *Members, fn func(v []byte) bool) bool {
	if !p.HasWildcard() {
		v, ok := p.lookupMembers(d)
		return !ok || fn(v)
	}
	w := rawWalkers.Get().(*RawWalker)
	ok := w.walk(p, d.b, d, fn, nil)
	rawWalkers.Put(w)
	return ok
}

// lookupMembers is lookupRaw with the first step through d's table.
func (p *Pointer) lookupMembers(d *Members) ([]byte, bool) {
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

// lateName guesses that name sorts among the last members of an object,
// so that reading them from the end finds it sooner: a guess, which
// changes what a lookup skims, never what it finds.
func lateName(name string) bool { return len(name) > 0 && name[0] > 'm' }

// lookupBack reads members from the end until one is named name, or
// every member not yet read from the start is read (sure, found false:
// there is none, since a canonical object names each member once). sure
// is false when the bytes are not what they should be: the scan from the
// start then decides.
func (d *Members) lookupBack(name string) (key, value []byte, found, sure bool) {
	if key, value, found := d.lastNamed(d.members, name); found { // read from the start already
		return key, value, true, true
	}
	for d.front > d.next {
		end := d.front // the root's closing brace, or a comma before front
		if len(d.tail) > 0 {
			if end--; d.b[end] != ',' {
				return nil, nil, false, false
			}
		}
		start, key, value, ok := memberBefore(d.b, end)
		if !ok {
			return nil, nil, false, false
		}
		d.tail, d.front = append(d.tail, rawEntry{key, value}), start
		if rawNameEquals(key, name) {
			return key, value, true, true
		}
	}
	return nil, nil, false, d.front == d.next
}

// memberBefore reads, backwards, the member of an object in b whose value
// ends just before end, and returns the offset of its key; ok is false
// where the bytes do not read as a member. In RFC 8785 bytes (valid JSON,
// no whitespace) reading a value backwards finds the value memberAt, the
// forward reader, finds from its key: a string's opening quote is the
// first quote before it that no backslash escapes, and a container's
// opening bracket the first one before it outside strings that balances
// it. So the value is not read again forwards; the key is, which costs a
// few bytes and proves that the member starts where the backward read
// says (a well-formed string, then the colon).
func memberBefore(b []byte, end int) (start int, key, value []byte, ok bool) {
	vs := valueStart(b, end)
	if vs < 3 || b[vs-1] != ':' || b[vs-2] != '"' {
		return 0, nil, nil, false
	}
	start = stringStart(b, vs-2)
	if start < 1 || b[start-1] != ',' && b[start-1] != '{' || skipString(b, start) != vs-1 {
		return 0, nil, nil, false
	}
	return start, b[start : vs-1], b[vs:end], true
}

// valueStart returns the offset of the first byte of the value whose last
// byte is b[end-1], read backwards, or -1.
func valueStart(b []byte, end int) int {
	if end < 1 || end > len(b) {
		return -1
	}
	switch b[end-1] {
	case '"':
		return stringStart(b, end-1)
	case '}', ']':
		return containerStart(b, end-1)
	}
	i := end - 1
	for i >= 0 && !isDelim(b[i]) && b[i] != '{' && b[i] != '[' && b[i] != '"' {
		i--
	}
	if i+1 >= end {
		return -1
	}
	return i + 1
}

// containerStart returns the offset of the bracket that opens the object
// or array whose closing bracket is b[c], or -1. It looks only at the
// bytes skipContainer does (structural), and jumps over each string from
// its closing quote to its opening one.
func containerStart(b []byte, c int) int {
	depth := 0
	for i := c; i >= 0; i-- {
		if !structural[b[i]] {
			continue
		}
		switch b[i] {
		case '"':
			if i = stringStart(b, i); i < 0 {
				return -1
			}
		case '}', ']':
			depth++
		default: // '{', '['
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// stringStart returns the offset of the quote that opens the string whose
// closing quote is b[q], or -1. Inside a string a quote is escaped, so
// follows an odd run of backslashes; the opening one follows none.
func stringStart(b []byte, q int) int {
	for j := q; j > 0; {
		if j = lastQuote(b, j); j < 0 {
			return -1
		}
		n := 0
		for p := j - 1; p >= 0 && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j
		}
	}
	return -1
}

// lastQuote is bytes.LastIndexByte(b[:i], '"'), eight bytes a step:
// strings are most of a document's bytes, and the standard library
// searches backwards one byte at a time.
func lastQuote(b []byte, i int) int {
	const ones, highs, quotes = 0x0101010101010101, 0x8080808080808080, 0x2222222222222222
	for ; i >= 8; i -= 8 {
		// A byte of w is zero where b holds a quote; (w-ones)&^w&highs
		// is non-zero exactly when some byte of w is zero.
		if w := binary.LittleEndian.Uint64(b[i-8:i]) ^ quotes; (w-ones)&^w&highs != 0 {
			break // a quote among these eight bytes
		}
	}
	return bytes.LastIndexByte(b[:i], '"')
}
