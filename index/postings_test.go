package index

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPostingSetEqualsMap adds random keys of every shape — path keys
// of families with and without values, a valueless family given a value,
// path ids past the slotted range, keys that are no path key — over
// several mutations, and checks after each that the set holds exactly
// what a map of key to numbers holds: every key found with its numbers,
// every absent key not found, in the order the keys came.
func TestPostingSetEqualsMap(t *testing.T) {
	fams := []byte{famExists, famLong, famNoGram, famEq, famRange, famBucket, famGram, famShort, famKind, famAll}
	ids := []uint32{0, 1, 2, 7, 300, 1<<18 - 1, 1 << 18, 1<<32 - 1}
	rapid.Check(t, func(t *rapid.T) {
		s := newPostingSet()
		for range rapid.IntRange(1, 4).Draw(t, "mutations") {
			want := map[string][]uint32{}
			var order []string
			num := uint32(1)
			for range rapid.IntRange(0, 60).Draw(t, "adds") {
				key := appendFamily(nil, rapid.SampledFrom(fams).Draw(t, "fam"))
				if rapid.Bool().Draw(t, "path") {
					key = binary.BigEndian.AppendUint32(key, rapid.SampledFrom(ids).Draw(t, "id"))
				}
				key = append(key, rapid.SampledFrom([]string{"", "a", "b", "ab"}).Draw(t, "value")...)
				num += uint32(rapid.IntRange(0, 2).Draw(t, "step"))
				s.add(key, num)
				k := string(key)
				if _, ok := want[k]; !ok {
					order = append(order, k)
				}
				if n := want[k]; len(n) == 0 || n[len(n)-1] != num {
					want[k] = append(n, num)
				}
			}
			var got []string
			s.each(func(k string, p *posting) {
				got = append(got, k)
				if !slices.Equal(p.nums(), want[k]) {
					t.Fatalf("key %q: numbers %v, want %v", k, p.nums(), want[k])
				}
			})
			if !slices.Equal(got, order) {
				t.Fatalf("keys %q, want %q", got, order)
			}
			for _, k := range order {
				if p := s.find(k); p == nil || !slices.Equal(p.nums(), want[k]) {
					t.Fatalf("find %q: %v", k, p)
				}
			}
			for _, k := range []string{"Xe\x00\x00\x00\x09", "Xqzz", "Xq\x00\x00\x00\x01zz", "Xk"} {
				if _, ok := want[k]; !ok && s.find(k) != nil {
					t.Fatalf("find %q: found a key never added", k)
				}
			}
			if s.len() != len(order) {
				t.Fatalf("len %d, want %d", s.len(), len(order))
			}
			s.reset()
		}
	})
}

// TestPostingSetLongChains adds numbers enough to chain many blocks per
// key across slab chunks, and keys enough to grow the table many times,
// over two mutations, the second after a reset that drops the grown
// table: every key keeps exactly its numbers, in order.
func TestPostingSetLongChains(t *testing.T) {
	s := newPostingSet()
	for round := range 2 {
		want := map[string][]uint32{}
		var order []string
		add := func(k string, n uint32) {
			if _, ok := want[k]; !ok {
				order = append(order, k)
			}
			if w := want[k]; len(w) == 0 || w[len(w)-1] != n {
				want[k] = append(w, n)
			}
			s.add([]byte(k), n)
		}
		for n := uint32(1); n <= 150_000; n++ {
			add("Xa", n)
			add("Xa", n) // a repeat is dropped
			if n%3 == 0 {
				add("Xe\x00\x00\x00\x01", n)
			}
			add(fmt.Sprintf("Xq\x00\x00\x00\x02%d", (n*7919+uint32(round))%100_000), n)
		}
		if s.len() != len(order) {
			t.Fatalf("round %d: len %d, want %d", round, s.len(), len(order))
		}
		i := 0
		s.each(func(k string, p *posting) {
			if k != order[i] {
				t.Fatalf("round %d: key %d is %q, want %q", round, i, k, order[i])
			}
			if got := p.nums(); !slices.Equal(got, want[k]) {
				t.Fatalf("round %d: key %q: %d numbers, want %d", round, k, len(got), len(want[k]))
			}
			i++
		})
		if p := s.find("Xq\x00\x00\x00\x02x"); p != nil {
			t.Fatalf("round %d: found a key never added", round)
		}
		s.reset()
		if s.len() != 0 || s.find("Xa") != nil {
			t.Fatalf("round %d: reset left keys", round)
		}
	}
}

// TestPostingSetAddAllEqualsAdd adds documents' keys (repeats within a
// document and the empty key included) as batches to one set and key by key to another,
// over runs that resetRun or reset ends, enough keys to grow the table
// within a batch: both sets hold the same keys in the same order with the
// same numbers, and a key of an earlier run is gone.
func TestPostingSetAddAllEqualsAdd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		all, one := newPostingSet(), newPostingSet()
		var b keyBatch
		var prev []byte
		for run := range rapid.IntRange(1, 3).Draw(t, "runs") {
			num := uint32(1)
			for range rapid.IntRange(0, 40).Draw(t, "docs") {
				b.reset()
				for range rapid.IntRange(0, 60).Draw(t, "keys") {
					key := appendPathKey(nil, famEq, uint32(rapid.IntRange(0, 3).Draw(t, "id")))
					key = fmt.Appendf(key, "%d-%d", run, rapid.IntRange(0, 400).Draw(t, "value"))
					if rapid.IntRange(0, 30).Draw(t, "empty") == 0 {
						key = nil // no path key, but a set takes any key
					}
					b.keys = append(b.keys, key...)
					b.ends = append(b.ends, uint32(len(b.keys)))
					one.add(key, num)
					prev = key
				}
				all.addAll(&b, num)
				num += uint32(rapid.IntRange(1, 3).Draw(t, "step"))
			}
			var got, want []string
			all.each(func(k string, p *posting) { got = append(got, fmt.Sprint(k, p.nums())) })
			one.each(func(k string, p *posting) { want = append(want, fmt.Sprint(k, p.nums())) })
			if !slices.Equal(got, want) {
				t.Fatalf("run %d: batches gave\n%q\nkey by key\n%q", run, got, want)
			}
			if rapid.Bool().Draw(t, "keep") {
				all.resetRun()
			} else {
				all.reset()
			}
			one.reset()
			if prev != nil && all.find(string(prev)) != nil {
				t.Fatalf("run %d: key %q found after the reset", run, prev)
			}
		}
	})
}

// TestPostingSetAddAtEqualsAdd adds documents' keys to one set as the
// shards do, a key with a path slot (pathSlot) by addAt and the others
// in a batch, and to another key by key, over runs that resetRun or
// reset ends: both sets hold the same keys with the same numbers, and
// a key of an earlier run is gone.
func TestPostingSetAddAtEqualsAdd(t *testing.T) {
	type kv struct {
		fam   byte
		value string
	}
	shapes := []kv{
		{famExists, ""}, {famExists, "n"}, {famTyped, "n"}, {famTyped, "i"}, {famTyped, "s"}, {famTyped, ""},
		{famMulti, "n"}, {famMulti, "i"}, {famMulti, "ni"}, {famEq, "n"}, {famEq, ""}, {famRange, "i"},
	}
	rapid.Check(t, func(t *rapid.T) {
		at, one := newPostingSet(), newPostingSet()
		var b keyBatch
		var prev []byte
		for range rapid.IntRange(1, 3).Draw(t, "runs") {
			num := uint32(1)
			for range rapid.IntRange(0, 30).Draw(t, "docs") {
				b.reset()
				for range rapid.IntRange(0, 40).Draw(t, "keys") {
					sh := rapid.SampledFrom(shapes).Draw(t, "shape")
					id := rapid.SampledFrom([]uint32{0, 1, 2, 7, 40, maxSlotted - 1, maxSlotted, 1<<32 - 1}).Draw(t, "id")
					key := append(appendPathKey(nil, sh.fam, id), sh.value...)
					one.add(key, num)
					prev = key
					if slot, ok := pathSlot(id, sh.fam, []byte(sh.value)); ok {
						at.addAt(slot, key, num)
						continue
					}
					b.keys = append(b.keys, key...)
					b.ends = append(b.ends, uint32(len(b.keys)))
				}
				at.addAll(&b, num)
				num += uint32(rapid.IntRange(1, 3).Draw(t, "step"))
			}
			var got, want []string
			at.each(func(k string, p *posting) { got = append(got, fmt.Sprint(k, p.nums())) })
			one.each(func(k string, p *posting) { want = append(want, fmt.Sprint(k, p.nums())) })
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("with path slots\n%q\nkey by key\n%q", got, want)
			}
			if rapid.Bool().Draw(t, "keep") {
				at.resetRun()
			} else {
				at.reset()
			}
			one.reset()
			if prev != nil && at.find(string(prev)) != nil {
				t.Fatalf("key %q found after the reset", prev)
			}
		}
	})
}

// TestGrownKeepsElements: grown returns a slice with the elements it was
// given and room for n more, the same one when it had room.
func TestGrownKeepsElements(t *testing.T) {
	s := []uint32{1, 2, 3}
	for n := range 20 {
		g := grown(s, n)
		if !slices.Equal(g, s) || cap(g)-len(g) < n {
			t.Fatalf("grown(%v, %d) = %v, cap %d", s, n, g, cap(g))
		}
		if len(s)+n <= cap(s) && &g[0] != &s[0] {
			t.Fatalf("grown(%v, %d) copied a slice with room", s, n)
		}
		s = append(g, uint32(n))
	}
}
