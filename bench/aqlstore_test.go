package bench

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestAqlstoreLoadStoresEveryBatch loads a corpus of several batches,
// the last one short: every document is stored, and progress is told
// each batch once it is added, in order.
func TestAqlstoreLoadStoresEveryBatch(t *testing.T) {
	ctx := context.Background()
	a, err := newAqlstore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	src := &Source{Seed: 1, N: 2500}
	var told []int
	if _, err := a.Load(ctx, src, 1000, func(n int) { told = append(told, n) }); err != nil {
		t.Fatal(err)
	}
	if want := []int{1000, 2000, 2500}; !slices.Equal(told, want) {
		t.Errorf("progress told %v, want %v", told, want)
	}
	st, err := a.s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != uint64(src.N) {
		t.Errorf("%d documents stored, want %d", st.Documents, src.N)
	}
}

// TestAqlstoreLoadCanceledStoresNothing cancels a load after its first
// batch: Load returns the cancellation, its generator stops, and the
// store holds nothing.
func TestAqlstoreLoadCanceledStoresNothing(t *testing.T) {
	a, err := newAqlstore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := &Source{Seed: 1, N: 5000}
	_, err = a.Load(ctx, src, 1000, func(int) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	st, err := a.s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 0 {
		t.Errorf("%d documents stored after a canceled load, want 0", st.Documents)
	}
}
