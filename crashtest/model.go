package crashtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// docKey identifies a document: natural keys are unique per kind and
// owner.
type docKey struct {
	owner string
	kind  canon.Kind
	key   string
}

func keyOf(d Doc) docKey { return docKey{d.Owner, d.Kind, d.Key} }

// entry is what the model knows of one document: the content it must
// have and the mutation that put or deleted it.
type entry struct {
	doc   Doc
	op    int
	cycle int
}

// Model is what the store must hold, replayed from the workload's events
// across cycles.
type Model struct {
	Cycle int // the cycle whose events are being applied, for messages

	live    map[docKey]entry // acknowledged (or settled) puts: must be present with this content
	gone    map[docKey]entry // acknowledged (or settled) deletes not re-put since: must be absent
	pending map[int]Event    // begun and not acknowledged

	Stats Stats
}

// Stats counts what the model checked.
type Stats struct {
	Acked          int // mutations acknowledged
	InFlight       int // mutations begun but not acknowledged when the workload stopped
	InFlightLanded int // of those, how many the store holds (all of it, or an import's prefix)
	Starts         int // runs that began to open the store (child processes only)
	Opens          int // runs that opened the store before they were stopped
}

// NewModel returns the model of an empty store.
func NewModel() *Model {
	return &Model{live: map[docKey]entry{}, gone: map[docKey]entry{}, pending: map[int]Event{}}
}

// Live returns the documents the store must hold, in a stable order.
func (m *Model) Live() []Doc {
	out := make([]Doc, 0, len(m.live))
	for _, k := range slices.SortedFunc(maps.Keys(m.live), compareKeys) {
		out = append(out, m.live[k].doc)
	}
	return out
}

func compareKeys(a, b docKey) int {
	return strings.Compare(a.owner+"\x00"+string(a.kind)+"\x00"+a.key, b.owner+"\x00"+string(b.kind)+"\x00"+b.key)
}

// Apply replays events in order. A begin is remembered until its ack,
// which makes its puts live and its deletes gone.
func (m *Model) Apply(events []Event) error {
	for i, e := range events {
		switch e.Ev {
		case EvStart:
			m.Stats.Starts++
		case EvOpen:
			m.Stats.Opens++
		case EvBegin:
			if _, dup := m.pending[e.Op]; dup {
				return fmt.Errorf("%w: event %d: op %d begun twice", ErrProtocol, i+1, e.Op)
			}
			m.pending[e.Op] = e
		case EvAck:
			b, ok := m.pending[e.Op]
			if !ok {
				return fmt.Errorf("%w: event %d: op %d acknowledged but never begun", ErrProtocol, i+1, e.Op)
			}
			delete(m.pending, e.Op)
			m.land(b, len(b.Puts))
			m.Stats.Acked++
		}
	}
	return nil
}

// land records that b's deletes and the first n of its puts happened.
func (m *Model) land(b Event, n int) {
	for _, d := range b.Dels {
		delete(m.live, keyOf(d))
		m.gone[keyOf(d)] = entry{d, b.Op, m.Cycle}
	}
	for _, d := range b.Puts[:n] {
		delete(m.gone, keyOf(d))
		m.live[keyOf(d)] = entry{d, b.Op, m.Cycle}
	}
}

// state is what the store holds under a document's key.
type state struct {
	present bool
	id      string // the content found, when present
}

func (st state) String() string {
	if !st.present {
		return "absent"
	}
	return fmt.Sprintf("present (%.12s…)", st.id)
}

// lookup reads the document of d's key that d's owner owns.
func lookup(ctx context.Context, s *store.Store, d Doc) (state, error) {
	doc, err := s.Lookup(store.WithPrincipal(ctx, d.Owner), d.Kind, d.Key)
	if errors.Is(err, store.ErrNotFound) {
		return state{}, nil
	}
	if err != nil {
		return state{}, fmt.Errorf("lookup %s: %w", d, err)
	}
	if doc.Owner != d.Owner { // the public document of the same key, not the owner's
		return state{}, nil
	}
	return state{present: true, id: doc.ID.String()}, nil
}

// byID reports whether d's owner reads a document of its own with d's
// content id.
func byID(ctx context.Context, s *store.Store, d Doc) (bool, error) {
	id, err := canon.ParseContentID(d.ID)
	if err != nil {
		return false, err
	}
	doc, err := s.Get(store.WithPrincipal(ctx, d.Owner), store.Ref{ID: id})
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("get %s: %w", d, err)
	}
	return doc.Owner == d.Owner, nil
}

func presence(found bool) string {
	if found {
		return "present"
	}
	return "absent"
}

// Settle decides, for every mutation in flight when the workload stopped,
// whether it happened, by reading s, and records the outcome. A mutation
// must have happened entirely or not at all; an import (batches, then its
// receipt) must hold a prefix of its documents. Every other outcome is a
// violation, returned with the cycle, the mutation and each document's
// state; such a mutation is left out of the model.
func (m *Model) Settle(ctx context.Context, s *store.Store) ([]string, error) {
	var violations []string
	for _, op := range slices.Sorted(maps.Keys(m.pending)) {
		b := m.pending[op]
		delete(m.pending, op)
		m.Stats.InFlight++
		puts, err := states(ctx, s, b.Puts)
		if err != nil {
			return nil, err
		}
		dels, err := states(ctx, s, b.Dels)
		if err != nil {
			return nil, err
		}
		n, happened, ok := landed(b, puts, dels)
		if !ok {
			violations = append(violations, m.halfReport(b, puts, dels))
			continue
		}
		if happened {
			m.Stats.InFlightLanded++
			m.land(b, n)
		}
	}
	return violations, nil
}

func states(ctx context.Context, s *store.Store, docs []Doc) ([]state, error) {
	out := make([]state, len(docs))
	for i, d := range docs {
		st, err := lookup(ctx, s, d)
		if err != nil {
			return nil, err
		}
		out[i] = st
	}
	return out, nil
}

// landed returns how many of b's puts the store holds, whether b
// happened (for an import: any of it), and whether the states are an
// outcome b may have: nothing of it, all of it, or (an import, which has
// no deletes) a prefix of its puts.
func landed(b Event, puts, dels []state) (n int, happened, ok bool) {
	for n < len(puts) && puts[n].present && puts[n].id == b.Puts[n].ID {
		n++
	}
	for _, st := range puts[n:] {
		if st.present {
			return 0, false, false // content that is not b's, or a put after one that is missing
		}
	}
	if b.What == "import" {
		return n, n > 0, true
	}
	delsDone, delsUndone := true, true
	for i, st := range dels {
		if st.present {
			delsDone = false
			if st.id != b.Dels[i].ID {
				return 0, false, false
			}
		} else {
			delsUndone = false
		}
	}
	switch {
	case n == len(puts) && delsDone && (n > 0 || len(dels) > 0):
		return n, true, true
	case n == 0 && delsUndone:
		return 0, false, true
	}
	return 0, false, false
}

// halfReport describes a mutation found partly applied.
func (m *Model) halfReport(b Event, puts, dels []state) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "cycle %d: %s was in flight at the crash and is half applied; expected all of it or none of it", m.Cycle, &b)
	if b.What == "import" {
		sb.WriteString(" (an import: a prefix of its documents)")
	}
	sb.WriteString(", found:")
	for i, d := range b.Puts {
		fmt.Fprintf(&sb, "\n  put %s: %s", d, puts[i])
	}
	for i, d := range b.Dels {
		fmt.Fprintf(&sb, "\n  delete %s: %s", d, dels[i])
	}
	return sb.String()
}

// CheckStore compares s with the model: every live document is found by
// its natural key with its content, every acknowledged delete stays
// deleted, and the store holds no document the model does not (found by
// walking every document, whoever owns it). It returns the violations.
func (m *Model) CheckStore(ctx context.Context, s *store.Store) ([]string, error) {
	var violations []string
	for _, k := range slices.SortedFunc(maps.Keys(m.live), compareKeys) {
		e := m.live[k]
		st, err := lookup(ctx, s, e.doc)
		if err != nil {
			return nil, err
		}
		if !st.present || st.id != e.doc.ID {
			violations = append(violations, fmt.Sprintf("cycle %d: %s lost: op %d of cycle %d put it; expected present (%.12s…), found %s",
				m.Cycle, e.doc, e.op, e.cycle, e.doc.ID, st))
			continue
		}
		if found, err := byID(ctx, s, e.doc); err != nil || !found {
			violations = append(violations, fmt.Sprintf("cycle %d: %s is found by its natural key but not by its content id (%v); "+
				"expected both", m.Cycle, e.doc, err))
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(m.gone), compareKeys) {
		e := m.gone[k]
		st, err := lookup(ctx, s, e.doc)
		if err != nil {
			return nil, err
		}
		found, err := byID(ctx, s, e.doc)
		if err != nil {
			return nil, err
		}
		if st.present || found {
			violations = append(violations, fmt.Sprintf("cycle %d: %s came back: op %d of cycle %d deleted it; expected absent, "+
				"found %s by its natural key, %s by its content id", m.Cycle, e.doc, e.op, e.cycle, st, presence(found)))
		}
	}
	extra, err := m.unexpected(ctx, s)
	return append(violations, extra...), err
}

// contentKey identifies a stored document without its natural key, which
// a walk of every document does not give: an owner stores one content of
// a kind once.
type contentKey struct {
	owner string
	kind  canon.Kind
	id    canon.ContentID
}

// unexpected walks every document and reports those the model does not
// hold, and live documents the walk did not meet.
func (m *Model) unexpected(ctx context.Context, s *store.Store) ([]string, error) {
	want := make(map[contentKey]entry, len(m.live))
	for _, e := range m.live {
		id, err := canon.ParseContentID(e.doc.ID)
		if err != nil {
			return nil, err
		}
		want[contentKey{e.doc.Owner, e.doc.Kind, id}] = e
	}
	var violations []string
	err := s.EachDocument(ctx, func(num uint32, d store.IndexInput) error {
		k := contentKey{d.Owner, d.Kind, canon.Sum(d.Canonical)}
		if _, ok := want[k]; !ok {
			violations = append(violations, fmt.Sprintf("cycle %d: document %d (%s of %s, %.12s…) is stored, "+
				"but no acknowledged or in-flight mutation put it; expected absent", m.Cycle, num, d.Kind, d.Owner, k.id))
		}
		delete(want, k)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk documents: %w", err)
	}
	for _, e := range want {
		violations = append(violations, fmt.Sprintf("cycle %d: %s (op %d of cycle %d) is not among the stored documents; "+
			"expected it there", m.Cycle, e.doc, e.op, e.cycle))
	}
	slices.Sort(violations)
	return violations, nil
}
