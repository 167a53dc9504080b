package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
)

// TestVerifyNamesDamage flips a byte on disk inside the block holding one
// document's blob: `aqlstore verify` must exit non-zero, name the damaged
// file and the blobs it could not read, and say how to recover, in text
// and in JSON.
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
	file := flipMarker(t, dir, []byte("marker-0100-"))

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

// flipMarker flips the last byte of marker in the sstable that holds it
// and returns the file's path.
func flipMarker(t *testing.T, dir string, marker []byte) string {
	t.Helper()
	ssts, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	for _, path := range ssts {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.Index(b, marker); i >= 0 {
			b[i+len(marker)-1] ^= 0x01
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}
	}
	t.Fatalf("no sstable of %s holds %q", dir, marker)
	return ""
}
