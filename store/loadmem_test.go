package store

import (
	"fmt"
	"testing"
)

// TestLoadMemEqualsMap sets keys enough to grow the table many times,
// sets some again with values of other lengths, and checks every key
// against a map, and keys never set as absent.
func TestLoadMemEqualsMap(t *testing.T) {
	m := newLoadMem()
	want := map[string]string{}
	for i := range 100_000 {
		k := fmt.Sprintf("R%d", i*7919%100_003)
		v := fmt.Sprint(i)
		if i%5 == 0 {
			k = fmt.Sprintf("R%d", i/5) // set again, or first
			v = fmt.Sprintf("again %d", i)
		}
		m.set([]byte(k), []byte(v))
		want[k] = v
	}
	for k, v := range want {
		if got, ok := m.get([]byte(k)); !ok || string(got) != v {
			t.Fatalf("key %q: %q, %v; want %q", k, got, ok, v)
		}
	}
	for _, k := range []string{"", "R", "R-1", "S1"} {
		if got, ok := m.get([]byte(k)); ok {
			t.Fatalf("key %q never set: found %q", k, got)
		}
	}
	if len(m.ents) != len(want) {
		t.Fatalf("%d entries for %d keys", len(m.ents), len(want))
	}
}
