package crashtest

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
)

// The tests below show that each check can fail: a store that broke a
// promise is reported, with the cycle, the mutation and what was found.

func openTest(t *testing.T) (*store.Store, *index.Index) {
	t.Helper()
	opts := StoreOptions()
	opts.NoSync = true
	s, ix, err := index.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ix
}

// docs returns n generated bodies and their Docs under owner.
func docs(t *testing.T, s *store.Store, owner string, n int) ([][]byte, []Doc) {
	t.Helper()
	g := gen{rng: rand.New(rand.NewPCG(1, 2))}
	bodies := make([][]byte, n)
	out := make([]Doc, n)
	for i := range bodies {
		bodies[i] = g.json()
		p, err := s.Parse(bodies[i], "")
		if err != nil {
			t.Fatal(err)
		}
		out[i] = Doc{Owner: owner, Kind: p.Kind, Key: p.NaturalKey, ID: p.ID().String()}
	}
	return bodies, out
}

func put(t *testing.T, s *store.Store, owner string, bodies ...[]byte) {
	t.Helper()
	in := make([]store.Document, len(bodies))
	for i, b := range bodies {
		in[i] = store.Document{Body: b, Owner: owner}
	}
	if _, err := s.PutBatch(store.WithPrincipal(context.Background(), owner), in); err != nil {
		t.Fatal(err)
	}
}

func settle(t *testing.T, s *store.Store, m *Model, events ...Event) []string {
	t.Helper()
	if err := m.Apply(events); err != nil {
		t.Fatal(err)
	}
	v, err := m.Settle(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func wantViolation(t *testing.T, violations []string, words ...string) {
	t.Helper()
	if len(violations) != 1 {
		t.Fatalf("%d violations, want 1: %q", len(violations), violations)
	}
	for _, w := range words {
		if !strings.Contains(violations[0], w) {
			t.Fatalf("violation %q does not say %q", violations[0], w)
		}
	}
}

func TestSettleBatchAllOrNothing(t *testing.T) {
	s, _ := openTest(t)
	bodies, d := docs(t, s, store.Public, 3)
	put(t, s, store.Public, bodies[0], bodies[1])
	m := NewModel()
	m.Cycle = 7
	// Two of three documents of a batch: half applied.
	v := settle(t, s, m, Event{Ev: EvBegin, Op: 1, What: "batch", Puts: d})
	wantViolation(t, v, "cycle 7", "op 1", "half applied", "all of it or none of it", d[2].Key+`" of public`, "absent")
	// All of a batch: landed, and live from now on.
	if v := settle(t, s, m, Event{Ev: EvBegin, Op: 2, What: "batch", Puts: d[:2]}); len(v) != 0 {
		t.Fatal(v)
	}
	// None of it: not landed, and absent from the model.
	if v := settle(t, s, m, Event{Ev: EvBegin, Op: 3, What: "put", Puts: d[2:]}); len(v) != 0 {
		t.Fatal(v)
	}
	if st := m.Stats; st.InFlight != 3 || st.InFlightLanded != 1 || len(m.live) != 2 {
		t.Fatalf("stats %+v, %d live", st, len(m.live))
	}
	if v, err := m.CheckStore(context.Background(), s); err != nil || len(v) != 0 {
		t.Fatal(v, err)
	}
}

func TestSettleDelete(t *testing.T) {
	s, _ := openTest(t)
	bodies, d := docs(t, s, "did:web:t.example", 2)
	put(t, s, d[0].Owner, bodies...)
	m := NewModel()
	if err := m.Apply([]Event{{Ev: EvBegin, Op: 1, What: "batch", Puts: d}, {Ev: EvAck, Op: 1}}); err != nil {
		t.Fatal(err)
	}
	id, _ := canon.ParseContentID(d[0].ID)
	if err := s.Delete(store.WithPrincipal(context.Background(), d[0].Owner), store.Ref{ID: id, Owner: d[0].Owner}); err != nil {
		t.Fatal(err)
	}
	// The delete in flight happened; the one of d[1] did not.
	if v := settle(t, s, m, Event{Ev: EvBegin, Op: 2, What: "delete", Dels: d[:1]},
		Event{Ev: EvBegin, Op: 3, What: "delete", Dels: d[1:]}); len(v) != 0 {
		t.Fatal(v)
	}
	if _, gone := m.gone[keyOf(d[0])]; !gone || len(m.live) != 1 {
		t.Fatalf("gone %v, live %v", m.gone, m.live)
	}
	// A delete in flight that finds other content under the key.
	other := d[1]
	other.ID = strings.Repeat("0", 64)
	v := settle(t, s, m, Event{Ev: EvBegin, Op: 4, What: "delete", Dels: []Doc{other}})
	wantViolation(t, v, "op 4", "half applied", "present ("+d[1].ID[:12])
}

func TestSettleImportPrefix(t *testing.T) {
	s, _ := openTest(t)
	const owner = "did:web:import-1.example"
	bodies, d := docs(t, s, owner, 3)
	put(t, s, owner, bodies[0], bodies[2])
	m := NewModel()
	// An import commits in batches: a prefix may be there, a gap may not.
	v := settle(t, s, m, Event{Ev: EvBegin, Op: 1, What: "import", Puts: d})
	wantViolation(t, v, "op 1", "import", "prefix", "absent")
	if v := settle(t, s, m, Event{Ev: EvBegin, Op: 2, What: "import", Puts: []Doc{d[0], d[2], d[1]}}); len(v) != 0 {
		t.Fatal(v)
	}
	if m.Stats.InFlightLanded != 1 || len(m.live) != 2 {
		t.Fatalf("stats %+v, live %v", m.Stats, m.live)
	}
}

func TestCheckStoreFindsLostResurrectedAndStray(t *testing.T) {
	s, _ := openTest(t)
	bodies, d := docs(t, s, store.Public, 4)
	put(t, s, store.Public, bodies[0], bodies[2], bodies[3])
	m := NewModel()
	m.Cycle = 3
	err := m.Apply([]Event{
		{Ev: EvBegin, Op: 1, What: "batch", Puts: d[:3]}, {Ev: EvAck, Op: 1},
		{Ev: EvBegin, Op: 2, What: "delete", Dels: d[2:3]}, {Ev: EvAck, Op: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.CheckStore(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		d[1].Key + `" of public (` + d[1].ID[:12] + "…) lost: op 1 of cycle 3 put it; expected present",
		d[2].Key + `" of public (` + d[2].ID[:12] + "…) came back: op 2 of cycle 3 deleted it; expected absent, found present (" + d[2].ID[:12] + "…) by its natural key, present by its content id",
		"(" + string(d[3].Kind) + " of public, " + d[3].ID[:12] + "…) is stored, but no acknowledged or in-flight mutation put it",
		"(" + string(d[2].Kind) + " of public, " + d[2].ID[:12] + "…) is stored, but no acknowledged",
		d[1].Key + `" of public (` + d[1].ID[:12] + "…) (op 1 of cycle 3) is not among the stored documents",
	}
	if len(v) != len(want) {
		t.Fatalf("%d violations, want %d: %q", len(v), len(want), v)
	}
	for _, w := range want {
		found := false
		for _, got := range v {
			found = found || strings.Contains(got, w)
		}
		if !found {
			t.Errorf("no violation says %q: %q", w, v)
		}
	}
}

func TestApplyRefusesBrokenLogs(t *testing.T) {
	for _, events := range [][]Event{
		{{Ev: EvAck, Op: 1}},
		{{Ev: EvBegin, Op: 1}, {Ev: EvBegin, Op: 1}},
	} {
		if err := NewModel().Apply(events); !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "op 1") {
			t.Errorf("%v: %v", events, err)
		}
	}
}

func TestParseLog(t *testing.T) {
	log := `{"ev":"open"}` + "\n" + `{"ev":"begin","op":1,"what":"put","puts":[{"o":"public","k":"offer","key":"x","id":"ab"}]}` + "\n" +
		`{"ev":"ack","op":1}` + "\n" + `{"ev":"beg`
	events, err := ParseLog([]byte(log))
	if err != nil || len(events) != 3 || events[1].Puts[0].Key != "x" || events[2].Op != 1 {
		t.Fatalf("%+v, %v", events, err)
	}
	for _, bad := range []string{`{"ev":"open"}` + "\n" + `{"ev":"begin",` + "\n", `{"ev":"open","x":1}` + "\n", `{"ev":"oops"}` + "\n"} {
		if _, err := ParseLog([]byte(bad)); !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestLineLogRoundTrip(t *testing.T) {
	var b strings.Builder
	l := NewLineLog(&b)
	want := Event{Ev: EvBegin, Op: 9, What: "aidp", Writer: 1, Puts: []Doc{{Owner: "o", Kind: canon.KindAIDPObservation, Key: "e\x00x", ID: "ff"}}}
	if err := l.Emit(want); err != nil {
		t.Fatal(err)
	}
	got, err := ParseLog([]byte(b.String()))
	if err != nil || len(got) != 1 || got[0].Puts[0] != want.Puts[0] || got[0].Op != 9 || got[0].Writer != 1 {
		t.Fatalf("%+v, %v", got, err)
	}
}

// TestQueryCheckCountsDocuments shows that the query check sees a document
// the model expects and the store lacks.
func TestQueryCheckCountsDocuments(t *testing.T) {
	s, ix := openTest(t)
	g := gen{rng: rand.New(rand.NewPCG(1, 2))}
	m := NewModel()
	var all []Doc
	for i := range 3 {
		mid, body := g.pairl("")
		p, err := s.Parse(body, "")
		if err != nil {
			t.Fatal(err)
		}
		d := Doc{Owner: store.Public, Kind: canon.KindPAIRL, Key: mid, ID: p.ID().String()}
		all = append(all, d)
		if i < 2 {
			put(t, s, store.Public, body)
		}
	}
	if err := m.Apply([]Event{{Ev: EvBegin, Op: 1, Puts: all[:2]}, {Ev: EvAck, Op: 1}}); err != nil {
		t.Fatal(err)
	}
	q := querySpec{Kinds: []canon.Kind{canon.KindPAIRL}, Principal: store.Public, PageSize: 10, Policy: "ranked_set",
		Constraints: `{"path":"/mid","operator":"exists","value":true}`}
	var qs QueryStats
	if v, err := m.compareQuery(context.Background(), s, ix, q, &qs); err != nil || len(v) != 0 || qs.NonEmpty != 1 {
		t.Fatal(v, err, qs)
	}
	if err := m.Apply([]Event{{Ev: EvBegin, Op: 2, Puts: all[2:]}, {Ev: EvAck, Op: 2}}); err != nil {
		t.Fatal(err)
	}
	v, err := m.compareQuery(context.Background(), s, ix, q, &qs)
	if err != nil {
		t.Fatal(err)
	}
	wantViolation(t, v, "accepted 2 and rejected 0; expected 3 documents")
}

func TestRunRefusesWriterCount(t *testing.T) {
	s, ix := openTest(t)
	for _, n := range []int{0, maxWriters + 1} {
		err := Run(context.Background(), s, ix, Config{Writers: n}, &memLog{})
		if err == nil || !strings.Contains(err.Error(), "want 1 to 9") {
			t.Errorf("%d writers: %v", n, err)
		}
	}
}
