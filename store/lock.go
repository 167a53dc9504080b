package store

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// LockedError is Open's answer when another process (or another Open in
// this one) holds the store's directory. Pebble locks the LOCK file of
// the directory for as long as a store is open; the holder's pid is read
// from the lock itself where the system says (fcntl F_GETLK), else 0.
type LockedError struct {
	Dir         string
	PID         int  // the holder, or 0 when the system does not say
	ThisProcess bool // the store is already open in this process
}

func (e *LockedError) Error() string {
	if e.ThisProcess {
		return "store " + e.Dir + " is already open in this process; use that Store, or Close it before opening the directory again"
	}
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("another process (pid %d)", e.PID)
	}
	return "store " + e.Dir + " is locked by " + who + ", which has it open; stop that process " +
		"(or send your requests to it: a running `aqlstore serve` answers `aqlstore query --server URL`), then retry"
}

// Unwrap makes errors.Is(err, ErrLocked) hold.
func (e *LockedError) Unwrap() error { return ErrLocked }

// lockedError turns Pebble's failure to lock dir into a *LockedError; any
// other error is returned as it is.
func lockedError(dir string, err error) error {
	switch {
	case strings.Contains(err.Error(), "lock held by current process"): // Pebble's in-process check
		return &LockedError{Dir: dir, ThisProcess: true}
	case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EWOULDBLOCK):
		return &LockedError{Dir: dir, PID: lockHolder(dir)}
	case errors.Is(err, syscall.EACCES): // some systems answer a held fcntl lock so
		if pid := lockHolder(dir); pid > 0 {
			return &LockedError{Dir: dir, PID: pid}
		}
	}
	return err
}
