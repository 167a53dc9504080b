package store

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

// crashChildEnv makes the test binary act as the writer child.
const crashChildEnv = "AQLSTORE_CRASH_CHILD_DIR"

// TestMain lets the test binary double as the child process that the crash
// test kills.
func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		os.Exit(crashChild(dir))
	}
	os.Exit(m.Run())
}

// crashChild puts batches of documents forever, printing "ack <natural
// key>" for each document once PutBatch has returned: everything printed
// must survive a SIGKILL.
func crashChild(dir string) int {
	s, err := Open(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	start, _ := strconv.Atoi(os.Getenv("AQLSTORE_CRASH_CHILD_START"))
	out := bufio.NewWriter(os.Stdout)
	for i := start; ; {
		n := 1 + rand.IntN(50)
		docs := make([]Document, n)
		for j := range docs {
			docs[j] = Document{Body: []byte(fmt.Sprintf(`{"node_id":"n-%d","text":"%s"}`, i+j, strings.Repeat("x", rand.IntN(2000))))}
		}
		if _, err := s.PutBatch(ctx, docs); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for j := range docs {
			fmt.Fprintf(out, "ack n-%d\n", i+j)
		}
		out.Flush()
		i += n
	}
}

// TestCrashDuringBulkImport kills a writer at random moments and checks,
// after each kill, that the store opens, verifies, and holds every
// acknowledged document.
func TestCrashDuringBulkImport(t *testing.T) {
	cycles := 5
	if testing.Short() {
		cycles = 2
	}
	if v, _ := strconv.Atoi(os.Getenv("AQLSTORE_CRASH_CYCLES")); v > 0 {
		cycles = v
	}
	dir := t.TempDir()
	acked := map[string]bool{}
	next := 0
	for c := 0; c < cycles; c++ {
		lines := runAndKill(t, dir, next, time.Duration(50+rand.IntN(250))*time.Millisecond)
		for _, l := range lines {
			acked[strings.TrimPrefix(l, "ack ")] = true
		}
		next += 100000 // fresh keys each cycle: an unacknowledged doc may or may not be there
		checkAfterCrash(t, dir, acked)
	}
	t.Logf("%d kill/reopen cycles, %d acknowledged documents all present", cycles, len(acked))
}

func runAndKill(t *testing.T, dir string, start int, after time.Duration) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, "AQLSTORE_CRASH_CHILD_START="+strconv.Itoa(start))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "ack ") {
				lines = append(lines, sc.Text())
			}
		}
		close(done)
	}()
	time.Sleep(after)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
	_ = cmd.Wait()
	if strings.TrimSpace(stderr.String()) != "" {
		t.Fatalf("child failed: %s", stderr.String())
	}
	return lines
}

func checkAfterCrash(t *testing.T, dir string, acked map[string]bool) {
	t.Helper()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	verifyOK(t, s)
	ctx := context.Background()
	for key := range acked {
		if _, err := s.Lookup(ctx, canon.KindKnowledge, key); err != nil {
			t.Fatalf("acknowledged %s lost: %v", key, err)
		}
	}
}
