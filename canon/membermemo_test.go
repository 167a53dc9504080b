package canon

import (
	"crypto/sha256"
	"reflect"
	"testing"

	"github.com/aqlstore/aqlstore/internal/race"
	"pgregory.net/rapid"
)

// TestMemberMemoMatchesResolve: documents read again and again through
// Members resumed from a memo (two slots, so that documents evict each
// other) select what Resolve does, with the same paths as the walk over
// the bytes, however far earlier reads went and from which end.
func TestMemberMemoMatchesResolve(t *testing.T) {
	memo := NewMemberMemo(2)
	var w RawWalker
	var d Members
	rapid.Check(t, func(t *rapid.T) {
		type doc struct {
			c  []byte
			v  any
			id ContentID
		}
		docs := make([]doc, rapid.IntRange(1, 3).Draw(t, "docs"))
		for i := range docs {
			c, v := canonicalOf(t, genRawValue(t, rapid.IntRange(0, 4).Draw(t, "depth")))
			docs[i] = doc{c: c, v: v, id: sha256.Sum256(c)}
		}
		for range rapid.IntRange(1, 8).Draw(t, "reads") {
			x := &docs[rapid.IntRange(0, len(docs)-1).Draw(t, "doc")]
			d.ResetCanonicalMemo(x.c, x.id, memo)
			for range rapid.IntRange(0, 3).Draw(t, "pointers") {
				p := genRawPointer(t, x.v)
				want := p.ResolveAll(x.v, nil)
				if got := rawDocResolved(t, p, &d); !reflect.DeepEqual(got, want) {
					t.Fatalf("%q over %s:\nResolveMembers %s\nResolve       %s", p, x.c, AppendValue(nil, got), AppendValue(nil, want))
				}
				checkDocWalker(t, &w, p, &d)
			}
			if rapid.IntRange(0, 4).Draw(t, "each") == 0 {
				checkDocMembers(t, &d)
			}
			d.Memo(x.id, memo)
		}
		d.Reset(nil)
	})
}

// TestMemberMemoSkipsWhatWasRead: a document read again starts where the
// last read stopped. Its members are found without reading the bytes
// before them again (here made bytes no reader can read, which a second
// read must never reach), from either end; without the memo, the same
// lookups fail on them.
func TestMemberMemoSkipsWhatWasRead(t *testing.T) {
	good := []byte(`{"a":[1,{"b":"x\"]}"}],"c":{"d":2},"m":true,"t":{"u":"v"},"z":[1,2]}`)
	bad := []byte(`{"a":[1,{"b":"x\"]}"}!,"c":{"d":2},"m":tru!,"t":{"u":"v"},"z":[1,2]}`)
	id := sha256.Sum256(good)
	memo := NewMemberMemo(16)
	var d Members
	d.ResetCanonicalMemo(good, id, memo)
	for _, name := range []string{"c", "t"} { // "c" read from the start, "t" from the end
		if _, _, ok := d.lookup(name); !ok {
			t.Fatalf("lookup %q in %s: not found", name, good)
		}
	}
	d.Memo(id, memo)
	d.ResetCanonicalMemo(bad, id, memo) // the same size: a memo of good applies
	for _, c := range []struct{ name, want string }{{"c", `{"d":2}`}, {"t", `{"u":"v"}`}, {"z", `[1,2]`}} {
		if _, v, ok := d.lookup(c.name); !ok || string(v) != c.want {
			t.Errorf("lookup %q = %s, %v; want %s", c.name, v, ok, c.want)
		}
	}
	d.ResetCanonicalMemo(bad, id, nil)
	if _, v, ok := d.lookup("c"); ok {
		t.Errorf("without the memo, lookup c = %s across bytes no reader can read", v)
	}
}

// TestMemberMemoRefusesOtherBytes: an entry is not restored onto bytes of
// another size, or another document's, whatever the id says.
func TestMemberMemoRefusesOtherBytes(t *testing.T) {
	a := []byte(`{"a":[1,2,3],"b":1}`)
	memo := NewMemberMemo(1)
	id := sha256.Sum256(a)
	var d Members
	d.ResetCanonicalMemo(a, id, memo)
	d.lookup("b")
	d.Memo(id, memo)
	for _, other := range []string{`{"a":[1,2],"c":1}`, `{"a":1,"bc":[2,3,4]}`, `{"a":[1,2,3],"c":1}`} {
		d.ResetCanonicalMemo([]byte(other), id, memo)
		if _, v, ok := d.lookup("b"); ok {
			t.Errorf("%s: lookup b = %s, found through a memo of %s", other, v, a)
		}
	}
}

func TestMemberMemoNoAlloc(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under the race detector are its own")
	}
	c := []byte(`{"a":[1,2,3],"b":{"c":1},"t":2}`)
	id := sha256.Sum256(c)
	memo := NewMemberMemo(4)
	d := NewMembers(nil)
	d.ResetCanonicalMemo(c, id, memo)
	d.lookup("b")
	d.lookup("t")
	d.Memo(id, memo)
	if n := testing.AllocsPerRun(100, func() {
		d.ResetCanonicalMemo(c, id, memo)
		d.lookup("b")
		d.Memo(id, memo)
	}); n != 0 {
		t.Errorf("%v allocations per memoized read", n)
	}
}

// TestMemberMemoSecondChance: an entry read again since it was stored
// turns the next newcomer to its slot away, once; one not read again
// gives its slot up.
func TestMemberMemoSecondChance(t *testing.T) {
	memo := NewMemberMemo(1)
	a, b, c := []byte(`{"a":1,"z":2}`), []byte(`{"b":1,"z":2}`), []byte(`{"c":1,"z":2}`)
	ida, idb, idc := sha256.Sum256(a), sha256.Sum256(b), sha256.Sum256(c)
	var d Members
	read := func(doc []byte, id ContentID) {
		d.ResetCanonicalMemo(doc, id, memo)
		d.lookup("z")
		d.Memo(id, memo)
	}
	holds := func(step string, want ContentID) {
		if got := memo.slot(want).Load(); got == nil || got.id != want {
			t.Fatalf("%s: the slot does not hold the expected document", step)
		}
	}
	read(a, ida)
	holds("a stored", ida)
	read(a, ida) // restored: used
	read(b, idb)
	holds("b turned away", ida)
	read(b, idb)
	holds("b stored once a was not read again", idb)
	read(c, idc)
	holds("c stored over b, never read again", idc)
}
