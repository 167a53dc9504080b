package faultfs

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestKinds checks each kind against a real file: it fails the operations
// it names, on the files it names, counts them, and stops when cleared.
func TestKinds(t *testing.T) {
	dir := t.TempDir()
	f := New(vfs.Default)
	path := filepath.Join(dir, "000001.sst")
	other := filepath.Join(dir, "000002.log")
	want := bytes.Repeat([]byte("abcdefgh"), 64)
	for _, p := range []string{path, other} {
		w, err := f.Create(p, vfs.WriteCategoryUnspecified)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(want); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	read := func(p string) ([]byte, error) {
		r, err := f.Open(p)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		got := make([]byte, len(want))
		n, err := r.ReadAt(got, 0)
		if err == io.EOF && n == len(got) {
			err = nil
		}
		return got[:n], err
	}

	f.Set(Corrupt, "*.sst")
	got, err := read(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := countDiff(got, want); diff != 1 {
		t.Fatalf("corrupt read changed %d bytes, want 1", diff)
	}
	if got, _ := read(other); !bytes.Equal(got, want) {
		t.Fatal("corrupt read touched a file the pattern does not name")
	}
	if f.Count(Corrupt) != 1 {
		t.Fatalf("Count(Corrupt) = %d, want 1", f.Count(Corrupt))
	}

	f.Set(ReadError, "*.sst")
	if _, err := read(path); !errors.Is(err, syscall.EIO) {
		t.Fatalf("read error: %v, want EIO", err)
	}

	f.Set(NoSpace)
	w, err := f.OpenReadWrite(other, vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("write on a full disk: %v, want ENOSPC", err)
	}
	f.Set(SyncError, "*.log")
	if err := w.Sync(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("sync error: %v, want EIO", err)
	}
	f.Set(WriteError, "*.log")
	if _, err := w.Write([]byte("x")); !errors.Is(err, syscall.EIO) {
		t.Fatalf("write error: %v, want EIO", err)
	}
	f.Set(CreateError, "*.log")
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatalf("write under CreateError: %v", err)
	}
	if _, err := f.Create(filepath.Join(dir, "000003.log"), vfs.WriteCategoryUnspecified); !errors.Is(err, syscall.EIO) {
		t.Fatalf("create under CreateError: %v, want EIO", err)
	}
	f.Clear()
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatalf("write after Clear: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := read(path); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read after Clear: %v", err)
	}
	for _, k := range []Kind{NoSpace, SyncError, WriteError, ReadError, CreateError} {
		if f.Count(k) != 1 {
			t.Errorf("Count(%s) = %d, want 1", k, f.Count(k))
		}
	}
}

func countDiff(a, b []byte) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}
