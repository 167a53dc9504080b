package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// offers returns n Documents of distinct content and natural keys
// o-from..o-(from+n-1).
func offers(from, n int) []Document {
	docs := make([]Document, n)
	for i := range docs {
		docs[i] = Document{Body: fmt.Appendf(nil, `{"offer_id":"o-%d","v":%d}`, from+i, from+i)}
	}
	return docs
}

// TestProbeStaleAfterWrite prepares and probes a batch, then stores a
// document under one of its natural keys before the batch commits: the
// probe's "absent" is stale, and the batch must see the conflict (and a
// repeat of stored content must still find it), not trust the probe.
func TestProbeStaleAfterWrite(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	docs := offers(0, 2*probeMin)
	prep, err := s.PrepareAll(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	pr := s.probe(prep)
	if pr.absent[3]&absentNatural == 0 || pr.absent[3]&absentRefs == 0 {
		t.Fatalf("probe of an empty store found keys of document 4: %b", pr.absent[3])
	}
	if _, err := s.Put(ctx, Document{Body: []byte(`{"offer_id":"o-3","v":-1}`)}); err != nil {
		t.Fatal(err)
	}
	_, err = s.commitPuts(ctx, prep, pr)
	var be *BatchError
	if !errors.As(err, &be) || be.Index != 3 || !errors.Is(err, ErrConflict) {
		t.Fatalf("batch after a write under its natural key: %v, want a conflict at document 4", err)
	}

	docs = offers(50, probeMin)
	prep, err = s.PrepareAll(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	pr = s.probe(prep)
	first, err := s.Put(ctx, docs[5])
	if err != nil {
		t.Fatal(err)
	}
	refs, err := s.commitPuts(ctx, prep, pr)
	if err != nil {
		t.Fatal(err)
	}
	if refs[5].Created || refs[5].Num != first.Num {
		t.Fatalf("batch stored content put after its probe again: %+v, first %+v", refs[5], first)
	}
	verifyOK(t, s)
}

// TestProbeWithinBatch puts batches large enough to be probed whose
// documents repeat each other's content or natural keys: the probe finds
// both absent in the store, and the writer must still see the batch's
// own writes.
func TestProbeWithinBatch(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	docs := offers(0, 2*probeMin)
	docs[9] = docs[2] // the same content again: the same document
	refs, err := s.PutBatch(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	if refs[9] != refs[2] && (refs[9].Num != refs[2].Num || refs[9].Created) {
		t.Fatalf("content repeated in a batch stored twice: %+v and %+v", refs[2], refs[9])
	}
	docs = offers(100, 2*probeMin)
	docs[7] = Document{Body: []byte(`{"offer_id":"o-101","v":-1}`)} // document 2's natural key, other content
	_, err = s.PutBatch(ctx, docs)
	var be *BatchError
	if !errors.As(err, &be) || be.Index != 7 || !errors.Is(err, ErrConflict) {
		t.Fatalf("natural key repeated in a batch: %v, want a conflict at document 8", err)
	}
	st, _ := s.Stats(ctx)
	if st.Documents != 2*probeMin-1 {
		t.Fatalf("store holds %d documents, want %d", st.Documents, 2*probeMin-1)
	}
	verifyOK(t, s)
}

// TestProbeDuringWrite checks that a probe made while a write is under
// way (an odd write count) trusts nothing.
func TestProbeDuringWrite(t *testing.T) {
	s := openTest(t, nil)
	prep, err := s.PrepareAll(context.Background(), offers(0, probeMin))
	if err != nil {
		t.Fatal(err)
	}
	end := s.kv.writing()
	pr := s.probe(prep)
	end()
	if pr.absent != nil {
		t.Fatalf("probe during a write noted absent keys: %v", pr.absent)
	}
}
