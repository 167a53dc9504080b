package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

const lockChildEnv = "AQLSTORE_LOCK_CHILD_DIR"

// TestLockHolderChild is the other process of TestOpenLockedStore: it
// opens the store, says so, and holds it until its stdin closes.
func TestLockHolderChild(t *testing.T) {
	dir := os.Getenv(lockChildEnv)
	if dir == "" {
		t.Skip("run by TestOpenLockedStore")
	}
	s, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fmt.Println("open")
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// TestOpenLockedStore: opening a store another process holds names the
// directory, the holder's pid and what to do, instead of Pebble's
// "resource temporarily unavailable"; a second Open in the same process
// says so too.
func TestOpenLockedStore(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "open\n" {
		t.Fatalf("the child did not open the store: %q %v\n%s", line, err, stderr.String())
	}
	_, err := Open(dir, nil)
	var le *LockedError
	if !errors.Is(err, ErrLocked) || !errors.As(err, &le) {
		t.Fatalf("open of a store held by another process: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{dir, "locked by another process", "stop that process"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if runtime.GOOS == "linux" && !strings.Contains(msg, fmt.Sprintf("(pid %d)", cmd.Process.Pid)) {
		t.Errorf("%q does not name the holder, pid %d", msg, cmd.Process.Pid)
	}
	stdin.Close()
	_ = cmd.Wait()

	s, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("open once the holder exited: %v", err)
	}
	defer s.Close()
	if _, err := Open(dir, nil); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "already open in this process") {
		t.Fatalf("second open in this process: %v", err)
	}
}
