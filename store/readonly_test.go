package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// listDir names every file below dir with its size and modification time,
// so a test can see whether opening a store wrote anything. LOCK is left
// out: Pebble takes the directory lock read-only too.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "LOCK" {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		names = append(names, fmt.Sprintf("%s %d %s", path, info.Size(), info.ModTime()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestReadOnlyOpenCreatesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "typo")
	_, err := Open(dir, &Options{ReadOnly: true})
	if !errors.Is(err, ErrNoStore) {
		t.Fatalf("read-only open of a missing store: %v, want ErrNoStore", err)
	}
	if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
		t.Fatalf("read-only open created %s (%v)", dir, serr)
	}
	empty := t.TempDir()
	if _, err := Open(empty, &Options{ReadOnly: true}); !errors.Is(err, ErrNoStore) {
		t.Fatalf("read-only open of an empty directory: %v, want ErrNoStore", err)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Fatalf("read-only open wrote %d files into an empty directory", len(ents))
	}
}

func TestReadOnlyReadsAndRefusesWrites(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ref := mustPut(t, s, ctx, `{"a":1}`)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := listDir(t, dir)
	ro, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if doc, err := ro.Get(ctx, Ref{ID: ref.ID}); err != nil || string(doc.Body) != `{"a":1}` {
		t.Fatalf("read-only get: %v", err)
	}
	if _, err := ro.Put(ctx, Document{Body: []byte(`{"a":2}`)}); err == nil {
		t.Fatal("a read-only store accepted a put")
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if after := listDir(t, dir); !slices.Equal(before, after) {
		t.Fatalf("a read-only open changed the directory:\nbefore %q\nafter  %q", before, after)
	}
}
