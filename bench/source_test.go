package bench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestDirBytesSkipsVanishedFiles: a file an engine deleted while its
// directory was measured (a compaction) counts as nothing, not as an
// error; other errors still stop the walk.
func TestDirBytesSkipsVanishedFiles(t *testing.T) {
	if err := gone(fmt.Errorf("lstat x.sst: %w", fs.ErrNotExist)); err != nil {
		t.Fatalf("a vanished file: %v, want nil", err)
	}
	if err := gone(fs.ErrPermission); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("permission denied: %v, want it kept", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), make([]byte, 10), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := dirBytes(dir); err != nil || n != 10 {
		t.Fatalf("dirBytes = %d, %v; want 10", n, err)
	}
}
