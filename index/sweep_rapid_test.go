package index

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// sweepPointers are the member paths documents of the model draw from; a
// few, so that a path dropped by one Compact comes back in later puts.
var sweepPointers = []string{"/n0", "/n1", "/n2", "/o/n0", "/o/n1"}

// sweepValues are the values they hold, as JSON.
var sweepValues = []string{`1`, `2.5`, `"v1"`, `"v2"`}

// sweepModel is what the store should hold: each live document's values
// by pointer, and every path id the index ever gave, by path.
type sweepModel struct {
	dir   string
	s     *store.Store
	ix    *Index
	seq   int
	docs  map[store.Ref]map[string]string
	given map[uint32]Path // every id seen, with its path
	gone  map[uint32]bool // ids seen, then dropped
}

// TestSweepMatchesModel puts and deletes documents over a few member
// names, with compactions and reopens in between: index lookups always
// equal a scan of the model, after a Compact the dictionary holds exactly
// the paths live documents have, no id is ever reused, and Check passes.
func TestSweepMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dir, err := os.MkdirTemp("", "aqlstore-sweep-*")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		m := &sweepModel{dir: dir, docs: map[store.Ref]map[string]string{}, given: map[uint32]Path{}, gone: map[uint32]bool{}}
		m.open(t)
		defer func() { m.s.Close() }()
		for step := rapid.IntRange(1, 25).Draw(t, "steps"); step > 0; step-- {
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 5:
				m.put(t)
			case op < 8:
				m.delete(t)
			case op == 8:
				m.compact(t)
			default:
				m.reopen(t)
			}
			m.checkLookups(t)
			m.checkIDs(t)
		}
		m.compact(t)
		m.check(t)
		// Then every path goes, the highest ids with them, and comes back.
		for len(m.docs) > 0 {
			m.delete(t)
		}
		m.compact(t)
		m.reopen(t)
		m.putAll(t)
		m.checkLookups(t)
		m.checkIDs(t)
		m.check(t)
	})
}

func (m *sweepModel) check(t *rapid.T) {
	if rep, err := Check(context.Background(), m.s); err != nil || !rep.OK() {
		t.Fatalf("index check: %v %+v", err, rep)
	}
}

func (m *sweepModel) open(t *rapid.T) {
	s, ix, err := Open(m.dir, &store.Options{NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	m.s, m.ix = s, ix
}

func (m *sweepModel) reopen(t *rapid.T) {
	if err := m.s.Close(); err != nil {
		t.Fatal(err)
	}
	m.open(t)
}

func (m *sweepModel) put(t *rapid.T) {
	vals := map[string]string{}
	for _, p := range rapid.SliceOfDistinct(rapid.SampledFrom(sweepPointers), rapid.ID).Draw(t, "pointers") {
		vals[p] = rapid.SampledFrom(sweepValues).Draw(t, "value")
	}
	m.putValues(t, vals)
}

// putAll puts a document with a value at every pointer.
func (m *sweepModel) putAll(t *rapid.T) {
	vals := map[string]string{}
	for _, p := range sweepPointers {
		vals[p] = rapid.SampledFrom(sweepValues).Draw(t, "value")
	}
	m.putValues(t, vals)
}

func (m *sweepModel) putValues(t *rapid.T, vals map[string]string) {
	m.seq++
	top, nested := []string{fmt.Sprintf(`"seq":%d`, m.seq)}, []string(nil)
	for _, p := range slices.Sorted(maps.Keys(vals)) {
		member := fmt.Sprintf(`%q:%s`, p[strings.LastIndexByte(p, '/')+1:], vals[p])
		if strings.HasPrefix(p, "/o/") {
			nested = append(nested, member)
		} else {
			top = append(top, member)
		}
	}
	if nested != nil {
		top = append(top, `"o":{`+strings.Join(nested, ",")+`}`)
	}
	ref, err := m.s.Put(context.Background(), store.Document{Body: []byte("{" + strings.Join(top, ",") + "}")})
	if err != nil {
		t.Fatal(err)
	}
	m.docs[ref] = vals
}

func (m *sweepModel) delete(t *rapid.T) {
	if len(m.docs) == 0 {
		return
	}
	refs := slices.SortedFunc(maps.Keys(m.docs), func(a, b store.Ref) int { return int(a.Num) - int(b.Num) })
	ref := rapid.SampledFrom(refs).Draw(t, "delete")
	if err := m.s.Delete(context.Background(), ref); err != nil {
		t.Fatal(err)
	}
	delete(m.docs, ref)
}

// compact runs Compact and checks that the dictionary holds exactly the
// paths of live documents.
func (m *sweepModel) compact(t *rapid.T) {
	if err := m.s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[Path]bool{}
	for _, vals := range m.docs {
		want[""], want[Path("").appendMember("seq")] = true, true
		for p := range vals {
			at := Path("")
			for _, name := range strings.Split(p[1:], "/") {
				at = at.appendMember(name)
				want[at] = true
			}
		}
	}
	m.ix.mu.RLock()
	got := maps.Clone(m.ix.ids)
	m.ix.mu.RUnlock()
	for p := range got {
		if !want[p] {
			t.Fatalf("after Compact the dictionary still holds %s, which no live document has", p)
		}
	}
	for p := range want {
		if _, ok := got[p]; !ok {
			t.Fatalf("after Compact the dictionary lost %s, which a live document has", p)
		}
	}
}

// checkLookups compares existence and equality lookups at every pointer
// with a scan of the model.
func (m *sweepModel) checkLookups(t *rapid.T) {
	for _, ptr := range sweepPointers {
		ids, _ := m.ix.Paths(canon.MustParsePointer(ptr))
		got, err := m.ix.Exists(ids)
		if err != nil {
			t.Fatal(err)
		}
		m.same(t, "exists "+ptr, got, func(vals map[string]string) bool { _, ok := vals[ptr]; return ok })
		for _, v := range sweepValues {
			got, _, err := m.ix.Eq(ids, lookupValue(v))
			if err != nil {
				t.Fatal(err)
			}
			m.same(t, ptr+" eq "+v, got, func(vals map[string]string) bool { return vals[ptr] == v })
		}
	}
}

func lookupValue(v string) any {
	if s, ok := strings.CutPrefix(v, `"`); ok {
		return strings.TrimSuffix(s, `"`)
	}
	return canon.Number(v)
}

func (m *sweepModel) same(t *rapid.T, what string, got *roaring.Bitmap, has func(map[string]string) bool) {
	want := roaring.New()
	for ref, vals := range m.docs {
		if has(vals) {
			want.Add(ref.Num)
		}
	}
	if !got.Equals(want) {
		t.Fatalf("%s: the index gives %v, a scan %v", what, got, want)
	}
}

// checkIDs fails when an id the index gave comes back for another path,
// or at all once dropped.
func (m *sweepModel) checkIDs(t *rapid.T) {
	m.ix.mu.RLock()
	paths := maps.Clone(m.ix.paths)
	m.ix.mu.RUnlock()
	for id, p := range paths {
		if old, ok := m.given[id]; ok && old != p || m.gone[id] {
			t.Fatalf("path id %d, given to %s and dropped (%v), is back for %s", id, old, m.gone[id], p)
		}
		m.given[id] = p
	}
	for id := range m.given {
		if _, ok := paths[id]; !ok {
			m.gone[id] = true
		}
	}
}
