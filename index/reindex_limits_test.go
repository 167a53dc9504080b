package index

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// TestReindexPathLimits: a store written under wider path limits (or
// before there were any) holds a document whose paths the limits refuse.
// Reindexing it under the limits stops at that document, naming it, the
// limit and the pointer, instead of writing unbounded index keys; under
// the wider limits it indexes.
func TestReindexPathLimits(t *testing.T) {
	dir := t.TempDir()
	wide := &store.Options{NoSync: true, Limits: canon.Limits{MaxNameBytes: 4096}}
	s0, _, err := Open(dir, wide)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	put(t, s0, ctx, `{"offer_id":"a"}`)
	long := strings.Repeat("n", 2000)
	put(t, s0, ctx, `{"offer_id":"b","x":{"`+long+`":1}}`)
	s0.Close()

	err = Reindex(ctx, dir, nil, 10, nil)
	if !errors.Is(err, canon.ErrLimit) {
		t.Fatalf("reindex under the default limits: %v, want canon.ErrLimit", err)
	}
	for _, part := range []string{"document 2 ", "member name of 2000 bytes", "Limits.MaxNameBytes", "(at /x/nnn", "delete it, or raise"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("%q does not say %q", err, part)
		}
	}
	// The refused reindex left the store and its index as they were.
	s, _, err := Open(dir, wide)
	if err != nil {
		t.Fatalf("open after the refused reindex: %v", err)
	}
	s.Close()
	if err := Reindex(ctx, dir, wide, 10, nil); err != nil {
		t.Fatalf("reindex under the limits the store was written with: %v", err)
	}
}
