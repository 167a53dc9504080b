package store

import (
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// TestDecodeRecordAllocations: reading a record allocates its natural key
// only; a known kind and the public owner are shared strings, and the
// signals keep the value's bytes, as the inline body does.
func TestDecodeRecordAllocations(t *testing.T) {
	rec := record{id: canon.Sum([]byte(`{}`)), blob: 7, kind: canon.KindManifest, owner: Public,
		naturalKey: "m-1", signals: []byte(`{"score":1}`), seq: 9, inline: []byte{0, '{', '}'}}
	v := rec.append(nil, 7)
	var got record
	allocs := testing.AllocsPerRun(50, func() {
		var err error
		if got, err = decodeRecord(7, v); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("decodeRecord allocates %.0f times, want at most 1 (the natural key)", allocs)
	}
	if got.kind != canon.KindManifest || got.owner != Public || got.naturalKey != "m-1" || string(got.signals) != `{"score":1}` {
		t.Errorf("decoded %+v", got)
	}
	other := rec
	other.kind, other.owner = canon.Kind("custom"), "did:web:a.example"
	if got, err := decodeRecord(7, other.append(nil, 7)); err != nil || got.kind != "custom" || got.owner != "did:web:a.example" {
		t.Errorf("decoded %+v, %v", got, err)
	}
}
