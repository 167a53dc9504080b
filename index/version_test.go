package index

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// v2 is the index as it was before instant keys kept every fraction
// digit: the same postings, recorded under the old format name.
type v2 struct{ *Index }

func (v2) Version() string { return "aqlstore.index.v2" }

// TestOlderIndexRefused: a store indexed in the v2 format (instant range
// keys cut at nanoseconds) is refused with the way forward, and reindex
// brings it to this format, whose keys order instants past the ninth
// digit.
func TestOlderIndexRefused(t *testing.T) {
	if Version == "aqlstore.index.v2" {
		t.Fatal("the instant key format changed: Version must change with it")
	}
	dir := t.TempDir()
	old, err := store.Open(dir, &store.Options{NoSync: true, Indexer: v2{New()}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	put(t, old, ctx, `{"offer_id":"a","t":"2026-01-01T00:00:00.123456789Z"}`)
	b := put(t, old, ctx, `{"offer_id":"b","t":"2026-01-01T00:00:00.1234567891Z"}`)
	old.Close()
	if _, _, err := Open(dir, nil); err == nil || !strings.Contains(err.Error(), "aqlstore.index.v2") ||
		!strings.Contains(err.Error(), "run `aqlstore reindex`") {
		t.Fatalf("opening a v2 index: %v, want a refusal naming v2 and reindex", err)
	}
	if err := Reindex(ctx, dir, nil, 10, nil); err != nil {
		t.Fatal(err)
	}
	s, ix, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("open after reindex: %v", err)
	}
	defer s.Close()
	ids, _ := ix.Paths(canon.MustParsePointer("/t"))
	lo := canon.Instant{T: time.Date(2026, 1, 1, 0, 0, 0, 123456789, time.UTC)}
	bm, err := ix.InstantRange(ids, InstantBounds{Lo: &lo, OpenLo: true})
	if err != nil || bm.GetCardinality() != 1 || !bm.Contains(b.Num) {
		t.Fatalf("after .123456789: %v %v, want only document %d", bm, err, b.Num)
	}
}

// TestInstantKeyOrder: byte order of the range keys is the instants'
// order, at every fractional digit, and keyAfter lies between a key and
// the next.
func TestInstantKeyOrder(t *testing.T) {
	texts := []string{"1969-12-31T23:59:59.9999999999Z", "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.0000000001Z",
		"2026-01-01T00:00:00.1Z", "2026-01-01T00:00:00.10000000001Z", "2026-01-01T00:00:00.123456789Z",
		"2026-01-01T00:00:00.12345678900Z", "2026-01-01T00:00:00.1234567891Z", "2026-01-01T00:00:00.5Z",
		"2026-01-01T00:00:00.50001Z", "2026-01-01T00:00:01Z", "9999-12-31T23:59:59.99999999999Z"}
	for _, a := range texts {
		for _, b := range texts {
			x, _ := canon.ParseInstantFull(a)
			y, _ := canon.ParseInstantFull(b)
			kx, ky := appendSortableInstant(nil, x), appendSortableInstant(nil, y)
			if got, want := strings.Compare(string(kx), string(ky)), x.Compare(y); got != want {
				t.Errorf("%s vs %s: keys compare %d, instants %d", a, b, got, want)
			}
			if x.Compare(y) < 0 && string(instantKeyAfter(kx)) > string(ky) {
				t.Errorf("keyAfter(%s) passes %s", a, b)
			}
		}
	}
}
