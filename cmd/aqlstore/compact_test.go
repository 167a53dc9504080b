package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
)

// filesHolding lists the files of dir whose raw bytes hold marker.
func filesHolding(t *testing.T, dir, marker string) []string {
	t.Helper()
	var out []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(marker)) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestCompactErasesManifestKeys: a deleted member name leaves every file
// of the store after `aqlstore compact`. Store.Compact alone takes it out
// of every sstable, but a MANIFEST that recorded it as the last key of a
// flushed sstable keeps it; compact opens the store twice more, after
// which no MANIFEST from before holds it.
func TestCompactErasesManifestKeys(t *testing.T) {
	for _, flushed := range []bool{false, true} {
		dir := t.TempDir()
		const name = "member-name-of-a-person-q7z"
		s, _, err := index.Open(dir, &store.Options{BlockCompression: "none"})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ref, err := s.Put(ctx, store.Document{Body: []byte(`{"` + name + `":{}}`)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(ctx, store.Document{Body: []byte(`{"offer_id":"kept"}`)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, ref); err != nil {
			t.Fatal(err)
		}
		if flushed {
			// The delete's own sstable, and a Compact whose sweep ends on
			// the name's tombstone: the MANIFEST records the name.
			if _, err := s.DiskUsage(); err != nil {
				t.Fatal(err)
			}
			if err := s.Compact(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if len(filesHolding(t, dir, name)) == 0 {
			t.Fatal("no file holds the name before compact: the test shows nothing")
		}
		if code, out, errs := run(t, dir, "", "compact"); code != 0 || !strings.Contains(out, "compacted") {
			t.Fatalf("compact: %d %s %s", code, out, errs)
		}
		if held := filesHolding(t, dir, name); len(held) > 0 {
			t.Fatalf("flushed %v: after aqlstore compact the deleted name is still in %v", flushed, held)
		}
		if code, out, errs := run(t, dir, "", "verify"); code != 0 {
			t.Fatalf("verify after compact: %d %s %s", code, out, errs)
		}
	}
}
