package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
	"github.com/aqlstore/aqlstore/store/faultfs"
)

// TestVerifyNamesDamage flips a byte on disk inside the block holding one
// document's body (inline in its record): `aqlstore verify` must exit
// non-zero, name the damaged file and the documents it could not read, and
// say how to recover, in text and in JSON.
func TestVerifyNamesDamage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, _, err := index.Open(dir, &store.Options{BlockSize: 1024, BlockCompression: "none"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 200 {
		body := fmt.Sprintf(`{"node_id":"n-%04d","text":"marker-%04d-%s"}`, i, i, strings.Repeat("q", 100))
		if _, err := s.Put(ctx, store.Document{Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := run(t, dir, "", "verify"); code != 0 {
		t.Fatalf("verify before the damage: %d %s %s", code, out, errs)
	}
	file, err := faultfs.FlipOnDisk(dir, []byte("marker-0100-"))
	if err != nil {
		t.Fatal(err)
	}

	code, out, errs := run(t, dir, "", "verify")
	if code == 0 || !strings.Contains(out, "problem: database file "+file+" is damaged") ||
		!strings.Contains(out, "unreadable, in damaged file "+file) || !strings.Contains(errs, "1 damaged database files") ||
		!strings.Contains(errs, "restore the store from a backup") {
		t.Fatalf("verify of a damaged store: %d\n%s\n%s", code, out, errs)
	}
	t.Logf("verify:\n%s%s", out, errs)

	code, out, _ = run(t, dir, "", "--json", "verify")
	var rep struct {
		OK      bool                `json:"ok"`
		Damaged []map[string]string `json:"damaged"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, out)
	}
	if code == 0 || rep.OK || len(rep.Damaged) != 1 || rep.Damaged[0]["file"] != file ||
		!strings.Contains(rep.Damaged[0]["detail"], "checksum") {
		t.Fatalf("verify --json of a damaged store: %d %s", code, out)
	}
}
