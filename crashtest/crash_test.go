package crashtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// childEnv, when set, makes the test binary the workload's child process;
// its value is the path of the child's configuration (childConfig).
const childEnv = "AQLSTORE_CRASHTEST_CHILD"

// ResetEvery is how many cycles share one store before a fresh one
// starts: enough for crashes to land on a store with history (flushed
// tables, compactions, imports, deletes of earlier cycles' documents),
// few enough that a cycle's checks stay fast.
const ResetEvery = 10

// queriesPerCycle is how many random intents each cycle resolves both
// ways.
const queriesPerCycle = 4

// TestMain lets the test binary double as the child process that
// TestCrashKill kills.
func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(child(path))
	}
	os.Exit(m.Run())
}

// childConfig is what the parent hands the child.
type childConfig struct {
	Dir string `json:"dir"`
	Config
}

// child opens the store and runs the workload until it is killed. Any
// return is a failure, reported on stderr.
func child(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var c childConfig
	if err := json.Unmarshal(b, &c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	log := NewLineLog(os.Stdout)
	if err := log.Emit(Event{Ev: EvStart}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s, ix, err := index.Open(c.Dir, StoreOptions())
	if err != nil {
		fmt.Fprintln(os.Stderr, "open after a kill:", err)
		return 1
	}
	if err := log.Emit(Event{Ev: EvOpen}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	err = Run(context.Background(), s, ix, c.Config, log)
	fmt.Fprintln(os.Stderr, "workload:", err)
	return 1
}

// harness is what the two crash tests share: the cycle count, the random
// choices, the model and the counters of the summary.
type harness struct {
	t        *testing.T
	rng      *rand.Rand
	cycles   int
	model    *Model
	totals   Stats // of the models of earlier stores
	stores   int
	qs       QueryStats
	longest  time.Duration
	checking time.Duration

	loads, loadsCut int // bulk loads begun, and of them those the crash cut

	slowestOpen time.Duration // the longest a child took to open the store
	lastOpen    time.Duration // how long the last child that opened it took
}

func newHarness(t *testing.T) *harness {
	cycles := 30
	if testing.Short() {
		cycles = 5
	}
	if v := os.Getenv("AQLSTORE_CRASH_CYCLES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("AQLSTORE_CRASH_CYCLES=%q: want a positive number of cycles", v)
		}
		cycles = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("AQLSTORE_CRASH_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("AQLSTORE_CRASH_SEED=%q: want an unsigned integer", v)
		}
		seed = n
	}
	t.Logf("seed %d (AQLSTORE_CRASH_SEED=%d repeats the random choices; the crash moments depend on timing)", seed, seed)
	return &harness{t: t, rng: rand.New(rand.NewPCG(seed, 0)), cycles: cycles}
}

// config returns the workload's configuration for cycle c, starting a
// fresh model every ResetEvery cycles; fresh tells the caller to start a
// fresh store too.
func (h *harness) config(c, readers int) (cfg Config, fresh bool) {
	if fresh = c%ResetEvery == 0; fresh {
		if h.model != nil {
			h.totals.add(h.model.Stats)
		}
		h.model = NewModel()
		h.stores++
	}
	h.model.Cycle = c
	return Config{Seed: h.rng.Uint64(), KeyBase: (c + 1) * CycleStride, Writers: 2, Readers: readers,
		Live: h.model.Live()}, fresh
}

// delay is how long the workload runs before the crash: up to 400 ms.
func (h *harness) delay() time.Duration { return time.Duration(h.rng.IntN(400)) * time.Millisecond }

// check applies a cycle's events, runs the checks on the reopened store
// and fails the test at the first cycle with a violation: the model no
// longer describes the store after one.
func (h *harness) check(events []Event, s *store.Store, ix *index.Index) {
	t := h.t
	start := time.Now()
	acked := map[int]bool{}
	for _, e := range events {
		if e.Ev == EvAck {
			acked[e.Op] = true
		}
	}
	for _, e := range events {
		if e.Ev == EvBegin && e.What == "load" {
			h.loads++
			if !acked[e.Op] {
				h.loadsCut++
			}
		}
	}
	if err := h.model.Apply(events); err != nil {
		t.Fatalf("cycle %d: %v", h.model.Cycle, err)
	}
	violations, err := Check(context.Background(), s, ix, h.model, h.rng, queriesPerCycle, &h.qs)
	if err != nil {
		t.Fatalf("cycle %d: %v", h.model.Cycle, err)
	}
	for _, v := range violations {
		t.Errorf("%v: %s", ErrViolation, v)
	}
	if len(violations) > 0 {
		t.FailNow()
	}
	h.checking += time.Since(start)
}

func (s *Stats) add(o Stats) {
	s.Acked += o.Acked
	s.InFlight += o.InFlight
	s.InFlightLanded += o.InFlightLanded
	s.Starts += o.Starts
	s.Opens += o.Opens
}

// summary logs the figures of a run.
func (h *harness) summary(name string, elapsed time.Duration) {
	h.totals.add(h.model.Stats)
	if h.totals.Starts > 0 {
		h.t.Logf("%s: %d runs killed while they opened the store; the slowest open took %s", name,
			h.totals.Starts-h.totals.Opens, h.slowestOpen.Round(time.Millisecond))
	}
	h.t.Logf("%s: %d cycles on %d fresh stores in %s (longest cycle %s; reopen and checks %s in all); "+
		"%d mutations acknowledged and found; %d in flight at the crash, each found all or nothing (%d had landed); "+
		"%d runs opened the store before the crash; %d queries compared planner against full scan (%d with candidates); "+
		"%d bulk loads, %d of them cut by the crash; %d documents in the last store; 0 violations",
		name, h.cycles, h.stores, elapsed.Round(time.Millisecond), h.longest.Round(time.Millisecond),
		h.checking.Round(time.Millisecond), h.totals.Acked, h.totals.InFlight, h.totals.InFlightLanded,
		h.totals.Opens, h.qs.Compared, h.qs.NonEmpty, h.loads, h.loadsCut, len(h.model.live))
}

// TestCrashKill runs the workload in a child process, kills it with
// SIGKILL at a random moment, reopens the store and checks it; again and
// again, on a fresh store every ResetEvery cycles.
func TestCrashKill(t *testing.T) {
	h := newHarness(t)
	start := time.Now()
	dir := ""
	cfgPath := filepath.Join(t.TempDir(), "child.json")
	for c := range h.cycles {
		cstart := time.Now()
		cfg, fresh := h.config(c, 1)
		if fresh {
			dir = filepath.Join(t.TempDir(), "store")
		}
		duringOpen := h.rng.IntN(8) == 0
		delay := h.delay()
		if duringOpen { // somewhere in the time the last open took
			delay = time.Duration(h.rng.Int64N(int64(max(h.lastOpen, time.Millisecond)) + 1))
		}
		events, openTime := runAndKill(t, c, cfgPath, childConfig{Dir: dir, Config: cfg}, delay, duringOpen)
		if openTime > 0 {
			h.lastOpen = openTime
			h.slowestOpen = max(h.slowestOpen, openTime)
		}
		keepCopy(t, c, dir)
		s, ix, err := index.Open(dir, StoreOptions())
		if err != nil {
			t.Fatalf("cycle %d: reopen after SIGKILL: %v; expected the store to open", c, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "load.tmp")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("cycle %d: the files of a killed load survive the reopen (%v)", c, err)
		}
		h.check(events, s, ix)
		if err := s.Close(); err != nil {
			t.Fatalf("cycle %d: close: %v", c, err)
		}
		h.longest = max(h.longest, time.Since(cstart))
	}
	h.summary("SIGKILL", time.Since(start))
}

// keepCopy copies the store, as the kill left it, to $AQLSTORE_CRASH_KEEP
// when that is set, replacing the previous cycle's copy: after a failure,
// even a panic in the reopened store, it holds the failing cycle's store
// for `aqlstore --dir $AQLSTORE_CRASH_KEEP verify`.
func keepCopy(t *testing.T, cycle int, dir string) {
	keep := os.Getenv("AQLSTORE_CRASH_KEEP")
	if keep == "" {
		return
	}
	if err := os.RemoveAll(keep); err != nil {
		t.Fatalf("AQLSTORE_CRASH_KEEP: %v", err)
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return // killed before the store was created
	}
	if err := os.CopyFS(keep, os.DirFS(dir)); err != nil {
		t.Fatalf("cycle %d: AQLSTORE_CRASH_KEEP: copy the store: %v", cycle, err)
	}
}

// runAndKill starts the child and kills it delay after its "start" event
// when duringOpen (the kill may land while it opens the store), else
// delay after its "open" event, so that the delay is spent in the
// workload however long the process takes to start on a loaded machine.
// It returns the child's events and how long it took to open the store
// (0 if it did not). A child that stops by itself, or writes to stderr,
// failed.
func runAndKill(t *testing.T, cycle int, cfgPath string, cfg childConfig, delay time.Duration, duringOpen bool) ([]Event, time.Duration) {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+cfgPath)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type result struct {
		out []byte
		err error
	}
	started, opened := make(chan time.Time, 1), make(chan time.Time, 1)
	done := make(chan result, 1)
	go func() {
		var out []byte
		r := bufio.NewReader(stdout)
		for n := 0; ; n++ {
			line, err := r.ReadBytes('\n')
			if err == nil && n < 2 { // the first lines are the start and open events
				[]chan time.Time{started, opened}[n] <- time.Now()
			}
			out = append(out, line...)
			if err != nil { // the child's stdout closed: it died
				break
			}
		}
		done <- result{out, cmd.Wait()}
	}()
	wait := func(ch chan time.Time, what string) time.Time {
		select {
		case at := <-ch:
			return at
		case r := <-done:
			t.Fatalf("cycle %d: the child stopped by itself (%v) before it %s: %s", cycle, r.err, what, stderr.String())
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			t.Fatalf("cycle %d: the child had not %s after a minute", cycle, what)
		}
		return time.Time{}
	}
	startedAt := wait(started, "started")
	var openTime time.Duration
	if !duringOpen {
		openTime = wait(opened, "opened the store").Sub(startedAt)
	}
	var r result
	select {
	case r = <-done:
		t.Fatalf("cycle %d: the child stopped by itself (%v) before the kill: %s", cycle, r.err, stderr.String())
	case <-time.After(delay):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		r = <-done
	}
	var ee *exec.ExitError
	if !errors.As(r.err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("cycle %d: the child ended with %v, not the kill: %s", cycle, r.err, stderr.String())
	}
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		t.Fatalf("cycle %d: the child failed before the kill: %s", cycle, msg)
	}
	events, err := ParseLog(r.out)
	if err != nil {
		t.Fatalf("cycle %d: %v", cycle, err)
	}
	return events, openTime
}

// TestCrashPowerLoss runs the workload in process on Pebble's crashable
// memory file system and, at a random moment, takes a crash clone: what
// a power cut would leave, every synced byte and (in a third of the
// cycles) a random half of the unsynced ones. The clone is reopened and
// checked, and the next cycle runs on it.
func TestCrashPowerLoss(t *testing.T) {
	h := newHarness(t)
	start := time.Now()
	var fs *vfs.MemFS
	for c := range h.cycles {
		cstart := time.Now()
		cfg, fresh := h.config(c, 1)
		if fresh {
			fs = vfs.NewCrashableMem()
		}
		unsynced := []int{0, 0, 50}[h.rng.IntN(3)]
		var events []Event
		fs, events = powerCut(t, c, fs, StoreOptions(), cfg, h.delay(), 0, unsynced, h.rng.Uint64())
		s, ix := reopenClone(t, c, fs, unsynced)
		h.check(events, s, ix)
		if err := s.Close(); err != nil {
			t.Fatalf("cycle %d: close: %v", c, err)
		}
		h.longest = max(h.longest, time.Since(cstart))
	}
	h.summary("power loss", time.Since(start))
}

// memDir is where the power-loss stores live in their memory file system.
const memDir = "/store"

// powerCut opens the store in fs with opts, runs the workload for delay
// and until it has acknowledged minAcks mutations, and returns a crash
// clone of fs, keeping unsynced percent of the data that was not synced,
// with the events recorded before the clone.
func powerCut(t *testing.T, cycle int, fs *vfs.MemFS, opts *store.Options, cfg Config, delay time.Duration,
	minAcks, unsynced int, seed uint64) (*vfs.MemFS, []Event) {
	t.Helper()
	opts.FS = fs
	s, ix, err := index.Open(memDir, opts)
	if err != nil {
		t.Fatalf("cycle %d: open: %v", cycle, err)
	}
	log := &memLog{}
	_ = log.Emit(Event{Ev: EvOpen})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, s, ix, cfg, log) }()
	time.Sleep(delay)
	for deadline := time.Now().Add(time.Minute); log.acks() < minAcks; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("cycle %d: the workload acknowledged %d mutations in a minute, fewer than %d", cycle, log.acks(), minAcks)
		}
	}
	var clone *vfs.MemFS
	events := log.freeze(func() {
		clone = fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: unsynced, RNG: rand.New(rand.NewPCG(seed, 1))})
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cycle %d: the workload failed before the crash: %v", cycle, err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("cycle %d: close the store the crash was cloned from: %v", cycle, err)
	}
	return clone, events
}

// reopenClone opens the store of a crash clone.
func reopenClone(t *testing.T, cycle int, fs *vfs.MemFS, unsynced int) (*store.Store, *index.Index) {
	t.Helper()
	opts := StoreOptions()
	opts.FS = fs
	s, ix, err := index.Open(memDir, opts)
	if err != nil {
		t.Fatalf("cycle %d: reopen after a crash keeping %d%% of unsynced data: %v; expected the store to open", cycle, unsynced, err)
	}
	return s, ix
}

// TestPowerLossCatchesNoSync shows that the power-loss test can fail: a
// store that acknowledges writes before they are synced (NoSync) loses
// acknowledged writes in a power cut, and the checks must say so.
func TestPowerLossCatchesNoSync(t *testing.T) {
	for attempt := range 5 { // a cut that lands just after a sync loses nothing
		fs := vfs.NewCrashableMem()
		opts := StoreOptions()
		opts.NoSync = true
		cfg := Config{Seed: uint64(attempt), KeyBase: CycleStride, Writers: 2}
		fs, events := powerCut(t, 0, fs, opts, cfg, 0, 30, 0, uint64(attempt))
		s, ix := reopenClone(t, 0, fs, 0)
		m := NewModel()
		if err := m.Apply(events); err != nil {
			t.Fatal(err)
		}
		violations, err := Check(context.Background(), s, ix, m, rand.New(rand.NewPCG(1, 1)), 0, &QueryStats{})
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range violations {
			if strings.Contains(v, " lost: ") {
				t.Logf("attempt %d: %d violations, the first: %s", attempt, len(violations), violations[0])
				return
			}
		}
		t.Logf("attempt %d: %d acknowledged, nothing lost", attempt, m.Stats.Acked)
	}
	t.Fatal("five power cuts of a store that does not sync lost no acknowledged write: the check cannot see a lost write")
}
