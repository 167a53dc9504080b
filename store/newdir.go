package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// checkNewDir refuses to create a store in a directory that holds files
// of its own: a --dir pointed at a home or project directory by mistake
// would otherwise get Pebble's files mixed among the user's. A directory
// that does not exist, is empty, holds a store, or holds only files a
// store writes (what a process killed while creating one left) is fine.
func checkNewDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil // created below, or refused there with the reason
	}
	if err != nil {
		return nil // not a directory: MkdirAll says so
	}
	var foreign string
	for _, e := range entries {
		if !storeFile(e.Name()) {
			foreign = e.Name()
			break
		}
	}
	if foreign == "" {
		return nil
	}
	if ok, err := exists(dir, nil); err != nil || ok {
		return err // a store, with files of someone else's beside it: theirs to keep
	}
	return fmt.Errorf("%w: %s holds no store but is not empty (it has %q): a store is created only in a new or empty directory; give another --dir",
		ErrInvalid, dir, foreign)
}

// storeFile reports whether name is one a store's directory holds:
// Pebble's files and aqlstore's own.
func storeFile(name string) bool {
	switch name {
	case "LOCK", "CURRENT", "keys", loadTempDir, "lost+found":
		return true
	}
	for _, p := range []string{"MANIFEST-", "OPTIONS-", "marker.", "temporary."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, x := range []string{".log", ".sst", ".blob", ".dbtmp"} {
		if strings.HasSuffix(name, x) {
			return true
		}
	}
	return false
}
