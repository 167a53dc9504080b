package faultfs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// FlipOnDisk damages a closed store for good: it flips the last byte of
// the first occurrence of each marker in the sstable of dir that holds
// them (all in one file, as after a compaction) and returns that file's
// path. It is an error when no sstable holds them, or one holds only some.
func FlipOnDisk(dir string, markers ...[]byte) (string, error) {
	ssts, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		return "", err
	}
	for _, path := range ssts {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		found := 0
		for _, m := range markers {
			if i := bytes.Index(b, m); i >= 0 {
				b[i+len(m)-1] ^= 0x01
				found++
			}
		}
		if found == 0 {
			continue
		}
		if found != len(markers) {
			return "", fmt.Errorf("faultfs: %s holds %d of the %d markers", path, found, len(markers))
		}
		return path, os.WriteFile(path, b, 0o644)
	}
	return "", fmt.Errorf("faultfs: no sstable in %s holds the markers (%d files)", dir, len(ssts))
}
