package canon

import (
	"encoding/binary"
	"sync/atomic"
)

// MemberMemo remembers, for documents read through Members again and
// again (the candidates of a query asked often, the first documents every
// listed rejection reads), how far their root members were read: the
// offsets of the members found from the start and from the end, and where
// each scan stopped. A Members reset over the same document
// (ResetCanonicalMemo) starts from there instead of skimming the same
// kilobytes again: a manifest's late "tool" member follows four fifths of
// its bytes, and an early one ("conformance") follows its 2 KB of
// "actions".
//
// Entries are keyed by content id, and a stored document's bytes are a
// function of its content (the JSON view of a PAIRL text is derived from
// it), so an entry never goes stale: no commit invalidates it. An entry
// is restored only onto bytes of the size it was taken from, and only
// if its offsets lie within them. What a Members finds is the
// same with or without the memo; only what it skims differs.
//
// The memo holds a fixed number of entries, one per slot chosen by the
// content id; a newer document takes the slot of an older one not read
// again since it was stored or since the last newcomer was turned away. It is safe for
// concurrent use; entries, once published, are never modified.
type MemberMemo struct {
	slots []atomic.Pointer[memberState]
	mask  uint64
}

// memberState is the read state of one document's Members table, as
// offsets into its bytes.
type memberState struct {
	used        atomic.Bool // restored since it was stored, or since a newcomer was turned away
	id          ContentID
	size        int
	next, front int
	broken      bool
	members     []memoSpan // read from the start, in order
	tail        []memoSpan // read from the end, last member first
}

// memoSpan is one root member as offsets: b[key:keyEnd] is its quoted
// name, b[value:valueEnd] its value.
type memoSpan struct{ key, keyEnd, value, valueEnd uint32 }

// NewMemberMemo returns a memo of at least slots entries (a power of two).
func NewMemberMemo(slots int) *MemberMemo {
	n := 1
	for n < slots {
		n <<= 1
	}
	return &MemberMemo{slots: make([]atomic.Pointer[memberState], n), mask: uint64(n - 1)}
}

func (m *MemberMemo) slot(id ContentID) *atomic.Pointer[memberState] {
	return &m.slots[binary.LittleEndian.Uint64(id[:8])&m.mask]
}

// ResetCanonicalMemo is ResetCanonical(b) for the document whose content
// id is id, resuming the reads of its root that m remembers. A nil m is
// plain ResetCanonical.
func (d *Members) ResetCanonicalMemo(b []byte, id ContentID, m *MemberMemo) {
	d.ResetCanonical(b)
	if m == nil || !d.object() {
		return
	}
	s := m.slot(id).Load()
	if s == nil || s.id != id || s.size != len(b) || !s.fits(b) {
		return
	}
	if !s.used.Load() {
		s.used.Store(true)
	}
	for _, e := range s.members {
		d.members = append(d.members, e.entry(b))
	}
	for _, e := range s.tail {
		d.tail = append(d.tail, e.entry(b))
	}
	d.next, d.front, d.broken = s.next, s.front, s.broken
}

// fits reports whether every span lies in b, in order: the content id
// and the size say whose bytes these are, and this keeps a table that
// is not theirs from slicing past them. It reads the entry only, not b:
// on a million documents, touching every member's name to check it
// missed the cache once a member and cost more than the lookups saved.
func (s *memberState) fits(b []byte) bool {
	for _, spans := range [2][]memoSpan{s.members, s.tail} {
		for _, e := range spans {
			if e.key >= e.keyEnd || e.keyEnd > e.value || e.value > e.valueEnd || int(e.valueEnd) > len(b) {
				return false
			}
		}
	}
	return true
}

func (e memoSpan) entry(b []byte) rawEntry {
	return rawEntry{b[e.key:e.keyEnd], b[e.value:e.valueEnd]} // two-index slices: offset reads their starts back
}

// Memo records in m how far d has read its document's root, under the
// document's content id, unless m already holds as much of it. Call it
// before d is reset (d must still hold the bytes ResetCanonicalMemo gave
// it). A nil m records nothing.
func (d *Members) Memo(id ContentID, m *MemberMemo) {
	if m == nil || !d.canonical || !d.object() || len(d.b) > 1<<31 {
		return
	}
	p := m.slot(id)
	switch s := p.Load(); {
	case s == nil:
	case s.id == id && s.size == len(d.b):
		if s.known() >= d.known() {
			return
		}
	case s.used.Load():
		// A second chance, as a clock cache gives one: an entry
		// restored since it was stored stays, and goes to the next
		// newcomer unless it is restored again meanwhile. A query over
		// more documents than the memo holds then does not replace
		// every entry (and allocate a new one) at every document.
		s.used.Store(false)
		return
	}
	s := &memberState{id: id, size: len(d.b), next: d.next, front: d.front, broken: d.broken,
		members: d.spans(d.members), tail: d.spans(d.tail)}
	p.Store(s)
}

// known is how much of the root a read state holds: the members found,
// or every member once the scan from the start (next) is over.
func known(next, found int) int {
	if next < 0 {
		return 1 << 30
	}
	return found
}

func (d *Members) known() int { return known(d.next, len(d.members)+len(d.tail)) }

func (s *memberState) known() int { return known(s.next, len(s.members)+len(s.tail)) }

// spans gives the offsets of entries, slices of d.b.
func (d *Members) spans(entries []rawEntry) []memoSpan {
	if len(entries) == 0 {
		return nil
	}
	out := make([]memoSpan, len(entries))
	for i, e := range entries {
		k, v := d.offset(e.key), d.offset(e.value)
		out[i] = memoSpan{k, k + uint32(len(e.key)), v, v + uint32(len(e.value))}
	}
	return out
}

// offset is where s, a slice of d.b, starts in it.
func (d *Members) offset(s []byte) uint32 { return uint32(cap(d.b) - cap(s)) }
