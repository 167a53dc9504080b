package cluster

import (
	"errors"
	"reflect"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

func frameReply() *reply {
	return &reply{Applied: 42, More: true, RejectedTotal: 7, Plan: "eq /price",
		Candidates: []shardCandidate{
			{Key: rankKey{Score: "0.5", ID: "o1", Order: 17, Shard: 2, Num: 9}, Cost: &canon.Cost{Amount: "1.50", Currency: "EUR"}, Doc: []byte(`{"candidate_id":"o1"}`)},
			{Key: rankKey{ID: "o2", Order: -1, Shard: 2, Num: 1 << 31}, Doc: []byte(`{"candidate_id":"o2"}`)},
		},
		Before:   []shardCandidate{{Key: rankKey{ID: "o0", Order: 3}, Cost: &canon.Cost{Amount: "2"}}},
		Rejected: []shardCandidate{{Key: rankKey{ID: "r1", Order: 5, Shard: 2}, Doc: []byte(`{"candidate_id":"r1"}`)}},
	}
}

// A framed reply reads back as it was, and every frame cut short is an
// error saying where, not a panic or a shorter reply.
func TestReplyFrame(t *testing.T) {
	want := frameReply()
	b, err := encodeReply(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeReply(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
	for n := range len(b) {
		if _, err := decodeReply(b[:n]); err == nil {
			t.Fatalf("a frame cut to %d of %d bytes decoded", n, len(b))
		}
	}
	if _, err := decodeReply(append(b, 0)); err == nil {
		t.Error("a frame with a byte after its last field decoded")
	}
	if _, err := decodeReply(b[:len(b)-1]); !errors.Is(err, errShortFrame) {
		t.Errorf("a frame cut short: %v, want errShortFrame", err)
	}
}

func FuzzDecodeReply(f *testing.F) {
	b, err := encodeReply(frameReply())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := decodeReply(b)
		if err != nil {
			return
		}
		again, err := encodeReply(rep)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeReply(again); err != nil {
			t.Fatalf("a decoded reply does not read back: %v", err)
		}
	})
}
