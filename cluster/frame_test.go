package cluster

import (
	"bytes"
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

// A shard's member gets the merged rank and decision id in its bytes,
// the rest as it was; a member without them is left to be decoded.
func TestSplice(t *testing.T) {
	b := []byte(`{"candidate_id":"x","decision_record":{"decision_id":"urn:oap:decision:s-1","outcome":"accept"},"payload":{"rank":7},"rank":3}`)
	got, ok := splice(b, 12, "urn:oap:decision:m-\"2")
	want := `{"candidate_id":"x","decision_record":{"decision_id":"urn:oap:decision:m-\"2","outcome":"accept"},"payload":{"rank":7},"rank":12}`
	if !ok || string(got) != want {
		t.Errorf("splice = %s, %v\nwant %s", got, ok, want)
	}
	if got, ok := splice(b, 0, "d"); !ok || !bytes.Contains(got, []byte(`"rank":3}`)) {
		t.Errorf("splice without a rank = %s, %v: the rank changed", got, ok)
	}
	if _, ok := splice([]byte(`{"candidate_id":"x","decision_record":{"decision_id":"d"}}`), 1, "e"); ok {
		t.Error("a member without a rank was spliced")
	}
}
