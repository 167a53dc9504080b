package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/server/client"
	"github.com/aqlstore/aqlstore/store"
	"github.com/aqlstore/aqlstore/store/faultfs"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestDiskFaultIs503: a write that meets a failing write-ahead log is 503
// disk_fault, as is every write after it (the store refuses them until it
// is reopened), never a 201 or a bare 500; reads go on.
func TestDiskFaultIs503(t *testing.T) {
	ffs := faultfs.New(vfs.Default)
	st, ix, err := index.Open(t.TempDir(), &store.Options{FS: ffs, MemTableSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ts := serveStore(t, st, ix, nil)
	ctx := context.Background()
	c := ts.client(tokenA)
	refs, err := c.Put(ctx, []byte(`{"offer_id":"before-the-fault"}`), client.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ffs.Set(faultfs.WriteError, "*.log")
	for i, body := range []string{`{"offer_id":"meets-the-fault"}`, `{"offer_id":"after-the-fault"}`} {
		_, err := c.Put(ctx, []byte(body), client.PutOptions{})
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Status != http.StatusServiceUnavailable || !strings.Contains(err.Error(), "disk_fault") {
			t.Fatalf("put %d with the write-ahead log failing: %v, want 503 disk_fault", i, err)
		}
	}
	if ffs.Count(faultfs.WriteError) == 0 {
		t.Fatal("no fault was injected")
	}
	ffs.Clear()
	if _, err := c.Put(ctx, []byte(`{"offer_id":"fault-cleared"}`), client.PutOptions{}); err == nil ||
		!strings.Contains(err.Error(), "disk_fault") {
		t.Fatalf("a put after the fault cleared, before a reopen: %v, want 503 disk_fault", err)
	}
	if _, err := c.Get(ctx, refs[0].ID, nil, nil); err != nil {
		t.Fatalf("a read after the fault: %v", err)
	}
}
