//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package store

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// lockHolder returns the pid of the process holding the fcntl lock Pebble
// takes on dir/LOCK, or 0 when none does or it cannot be read.
func lockHolder(dir string) int {
	f, err := os.Open(filepath.Join(dir, "LOCK"))
	if err != nil {
		return 0
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil || lk.Type == syscall.F_UNLCK {
		return 0
	}
	return int(lk.Pid)
}
