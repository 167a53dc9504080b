package store

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store/faultfs"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Disk faults under a running store: what Pebble does with each is set
// out in kv_fault.go. Every test here checks the three things a fault
// must not break: the operation that meets it gets an error that says
// what failed (never nil, never a panic), nothing hangs, and once the
// disk is healthy the store opens with every acknowledged write and
// verifies.

// hangLimit bounds every wait on an operation that must not hang; it is
// generous because the machine is shared, and never a measurement.
const hangLimit = 2 * time.Minute

// within runs fn and fails the test when it has not returned within
// hangLimit.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(hangLimit):
		t.Fatalf("%s did not return within %v: it hangs", what, hangLimit)
	}
}

// faultDoc is the body of writer w's nth document: ~1 KiB, so that a few
// hundred of them fill the small memtables the tests use.
func faultDoc(w, n int) Document {
	return Document{Body: []byte(fmt.Sprintf(`{"node_id":"w%d-%d","text":"%s"}`, w, n, strings.Repeat("z", 1000)))}
}

// TestFaultDuringPuts turns a write fault on while four writers put
// documents and batches. Each writer stops at its first error. The
// memtable is grown first, so that no WAL switch falls in the fault: a
// WAL fault met by a switch ends the process
// (TestFaultWALRotationStopsProcess).
func TestFaultDuringPuts(t *testing.T) {
	for _, tc := range []struct {
		kind     faultfs.Kind
		files    []string
		errno    syscall.Errno
		mentions string
	}{
		{faultfs.WriteError, []string{"*.log"}, syscall.EIO, "input/output error"},
		{faultfs.SyncError, []string{"*.log"}, syscall.EIO, "input/output error"},
		// A full disk fails every data file; the MANIFEST is left out
		// here because Pebble stops the process on its failure
		// (TestFaultManifestStopsProcess).
		{faultfs.NoSpace, []string{"*.log", "*.sst"}, syscall.ENOSPC, "no space left on device"},
	} {
		t.Run(tc.kind.String(), func(t *testing.T) {
			dir := t.TempDir()
			ffs := faultfs.New(vfs.Default)
			s, err := Open(dir, &Options{FS: ffs})
			if err != nil {
				t.Fatal(err)
			}
			growMemtable(t, s)
			acked, errs := putUntilFault(t, s, func() { ffs.Set(tc.kind, tc.files...) })
			if n := ffs.Count(tc.kind); n == 0 {
				t.Fatalf("no %s was injected", tc.kind)
			}
			var first *FaultError
			transient := false // a failed flush may refuse writes before any WAL write fails
			for _, err := range errs {
				var fe *FaultError
				if !errors.As(err, &fe) || !errors.Is(err, ErrDiskFault) {
					t.Fatalf("a writer failed with %v, want a *FaultError", err)
				}
				if !errors.Is(err, tc.errno) || !strings.Contains(err.Error(), tc.mentions) {
					t.Fatalf("fault error %q does not carry %v", err, tc.errno)
				}
				transient = transient || fe.Transient
				if !fe.Refused && first == nil {
					first = fe
					t.Logf("%s (%d injected): the put that met it: %v", tc.kind, ffs.Count(tc.kind), err)
				}
			}
			if first == nil && !transient {
				t.Fatalf("every writer was refused, none met the fault itself: %v", errs)
			}
			checkRefusedThenReopen(t, s, dir, ffs, acked)
		})
	}
}

// growMemtable switches memtables until the current one holds 16 MiB,
// and returns how many documents it put. Pebble starts with 256 KiB and
// doubles at each switch, but a manual flush of a memtable less than half
// full keeps its size; so each round fills the memtable past half before
// flushing. A WAL switch comes with each memtable switch: a test that
// faults the WAL grows the memtable first so that no switch falls in the
// fault, and it watches the store, not Pebble ending the process.
func growMemtable(t *testing.T, s *Store) int {
	t.Helper()
	const want = 16 << 20
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(1, 2))
	text := make([]byte, 24<<10) // incompressible, so the memtable holds every byte
	n := 0
	for round := 0; ; round++ {
		size := s.kv.db.Metrics().MemTable.Size
		if size >= want {
			return n
		}
		if round == 8 {
			t.Fatalf("the memtable holds %d bytes after %d rounds, want %d", size, round, want)
		}
		for put := uint64(0); put <= size/2; put += uint64(len(text)) {
			for i := range text {
				text[i] = "0123456789abcdef"[rnd.IntN(16)]
			}
			mustPut(t, s, ctx, fmt.Sprintf(`{"node_id":"grow-%d","text":"%s"}`, n, text))
			n++
		}
		if err := s.kv.db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
}

// putUntilFault runs four writers until each has failed, calling fault
// once 200 writes are acknowledged. It returns the acknowledged natural
// keys and each writer's error.
func putUntilFault(t *testing.T, s *Store, fault func()) (map[string]bool, []error) {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	acked := map[string]bool{}
	errs := make([]error, 4)
	var once sync.Once
	var wg sync.WaitGroup
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 100000; n++ {
				var err error
				if n%5 == 4 { // some batches too: a bulk import meets the fault as well
					_, err = s.PutBatch(ctx, []Document{faultDoc(w, n), faultDoc(w+100, n)})
				} else {
					_, err = s.Put(ctx, faultDoc(w, n))
				}
				if err != nil {
					errs[w] = err
					return
				}
				mu.Lock()
				acked[fmt.Sprintf("w%d-%d", w, n)] = true
				if n%5 == 4 {
					acked[fmt.Sprintf("w%d-%d", w+100, n)] = true
				}
				if len(acked) >= 200 {
					once.Do(fault)
				}
				mu.Unlock()
			}
			errs[w] = errors.New("the writer never met the fault")
		}()
	}
	within(t, "writers under a fault", wg.Wait)
	return acked, errs
}

// checkRefusedThenReopen checks a store after a write fault: further
// writes are refused at once, reads still work, Close returns, and once
// the fault is cleared the store opens again (in a fresh process when
// Pebble was wedged) holding every acknowledged write and verifying.
func checkRefusedThenReopen(t *testing.T, s *Store, dir string, ffs *faultfs.FS, acked map[string]bool) {
	t.Helper()
	ctx := context.Background()
	var err error
	within(t, "a put after the fault", func() { _, err = s.Put(ctx, faultDoc(9, 0)) })
	var fe *FaultError
	if !errors.As(err, &fe) || !fe.Refused {
		t.Fatalf("put after the fault: %v, want a refusal", err)
	}
	t.Logf("the next put: %v", err)
	// Compact and DiskUsage flush: after a WAL fault that would make
	// Pebble abort the process, so both refuse.
	within(t, "Compact after the fault", func() { err = s.Compact(ctx) })
	if !errors.Is(err, ErrDiskFault) {
		t.Fatalf("Compact after the fault: %v, want ErrDiskFault", err)
	}
	within(t, "DiskUsage after the fault", func() { _, err = s.DiskUsage() })
	if !errors.Is(err, ErrDiskFault) {
		t.Fatalf("DiskUsage after the fault: %v, want ErrDiskFault", err)
	}
	for key := range acked {
		if _, err := s.Lookup(ctx, canon.KindKnowledge, key); err != nil {
			t.Fatalf("read of acknowledged %s after the fault: %v", key, err)
		}
		break
	}
	ffs.Clear()
	var cerr error
	within(t, "Close after the fault", func() { cerr = s.Close() })
	t.Logf("close: %v", cerr)
	if fe.Wedged {
		// Pebble's commit pipeline is locked: this process cannot open
		// the directory again. A restarted process sees what is on disk.
		if cerr == nil || !strings.Contains(cerr.Error(), "restart the process") {
			t.Fatalf("close of a wedged store: %v, want the way out", cerr)
		}
		dir = restartCopy(t, s, dir)
	}
	r, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("reopen after the fault cleared: %v", err)
	}
	defer r.Close()
	for key := range acked {
		if _, err := r.Lookup(ctx, canon.KindKnowledge, key); err != nil {
			t.Fatalf("acknowledged %s lost: %v", key, err)
		}
	}
	verifyOK(t, r)
	if _, err := r.Put(ctx, faultDoc(9, 1)); err != nil {
		t.Fatalf("put after the reopen: %v", err)
	}
	t.Logf("reopened with all %d acknowledged documents; verify ok", len(acked))
}

// restartCopy stands for a new process: it copies the wedged store's
// files, once Pebble has no flush or compaction running, to a new
// directory, which this process may open.
func restartCopy(t *testing.T, s *Store, dir string) string {
	t.Helper()
	within(t, "background work of the wedged store", func() {
		for {
			m := s.kv.db.Metrics()
			if m.Compact.NumInProgress == 0 && m.Flush.NumInProgress == 0 {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	to := t.TempDir()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "LOCK" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, d.Name()), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// TestFaultNoSyncStoreRefuses fails the WAL under a NoSync store, whose
// puts never wait for a sync: without watchWAL it would learn of the
// failure only from a panic inside Pebble. The put after the flusher
// failed must be refused, saying that unsynced writes may be lost, and
// the store must close and reopen consistent.
func TestFaultNoSyncStoreRefuses(t *testing.T) {
	dir := t.TempDir()
	ffs := faultfs.New(vfs.Default)
	s, err := Open(dir, &Options{FS: ffs, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	grown := growMemtable(t, s)
	ctx := context.Background()
	ffs.Set(faultfs.WriteError, "*.log")
	n := 0
	within(t, "puts after a WAL write fault", func() {
		for ; n < 5000; n++ {
			if _, err = s.Put(ctx, faultDoc(0, n)); err != nil {
				return
			}
		}
	})
	var fe *FaultError
	if !errors.As(err, &fe) || fe.Wedged || !fe.NoSync || !errors.Is(err, syscall.EIO) ||
		!strings.Contains(err.Error(), "may be lost") {
		t.Fatalf("puts into a failing WAL without syncs: %v, want a *FaultError saying unsynced writes may be lost", err)
	}
	t.Logf("put %d, after the flusher failed (%d injected): %v", n, ffs.Count(faultfs.WriteError), err)
	ffs.Clear()
	var cerr error
	within(t, "Close after the fault", func() { cerr = s.Close() })
	t.Logf("close: %v", cerr)
	r, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer r.Close()
	rep := verifyOK(t, r) // NoSync: acknowledged writes may be lost, consistency may not
	t.Logf("reopened: %d of %d acknowledged documents kept, verify ok", rep.Documents-grown, n)
}

// TestCommitPanicWedgesStore makes Pebble panic inside Apply (a batch of
// another database: Pebble's own check), as a commit does that meets the
// log writer's sticky error. The store must turn the panic into a
// FaultError, refuse what follows, and close without calling into
// Pebble, which after a real commit panic would block forever.
func TestCommitPanicWedgesStore(t *testing.T) {
	s := openTest(t, &Options{})
	other := openTest(t, &Options{})
	b := other.kv.newBatch()
	_ = b.set([]byte("Mx"), []byte("y"))
	err := s.kv.apply(b, true)
	var fe *FaultError
	if !errors.As(err, &fe) || !fe.Wedged || !strings.Contains(err.Error(), "restart the process") {
		t.Fatalf("apply that panics inside Pebble: %v, want a wedged *FaultError", err)
	}
	t.Logf("the commit: %v", err)
	_, err = s.Put(context.Background(), faultDoc(0, 0))
	if !errors.As(err, &fe) || !fe.Refused {
		t.Fatalf("put after the panic: %v, want a refusal", err)
	}
	var cerr error
	within(t, "Close of a wedged store", func() { cerr = s.Close() })
	if cerr == nil || !strings.Contains(cerr.Error(), "restart the process") {
		t.Fatalf("Close: %v, want the way out", cerr)
	}
	// Pebble is not really wedged here: release it so the test leaves no
	// open database behind.
	if err := s.kv.db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFaultFlushNoSpace fills the disk for sstables only, as happens
// when the WAL's preallocated file still has room: Pebble's flushes fail
// and it retries them without end. Without the store's refusal, puts
// would fill memtables until they stall inside Pebble for as long as the
// disk stays full. With it, a put fails with ENOSPC, and once the disk
// has room again puts go through without a reopen.
func TestFaultFlushNoSpace(t *testing.T) {
	dir := t.TempDir()
	ffs := faultfs.New(vfs.Default)
	s, err := Open(dir, &Options{FS: ffs, MemTableSize: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ffs.Set(faultfs.NoSpace, "*.sst")
	acked := map[string]bool{}
	within(t, "puts while flushes fail", func() {
		for n := 0; n < 100000; n++ {
			if _, err = s.Put(ctx, faultDoc(0, n)); err != nil {
				return
			}
			acked[fmt.Sprintf("w0-%d", n)] = true
		}
	})
	var fe *FaultError
	if !errors.As(err, &fe) || !fe.Transient || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), ".sst") {
		t.Fatalf("put while flushes fail: %v, want a transient *FaultError with ENOSPC naming the file", err)
	}
	t.Logf("after %d acknowledged puts (%d faults injected): %v", len(acked), ffs.Count(faultfs.NoSpace), err)
	if _, err := s.Lookup(ctx, canon.KindKnowledge, "w0-0"); err != nil {
		t.Fatalf("read while flushes fail: %v", err)
	}
	ffs.Clear()
	within(t, "puts once the disk has room", func() {
		for n := 0; ; n++ {
			if _, err = s.Put(ctx, faultDoc(1, n)); err == nil {
				acked[fmt.Sprintf("w1-%d", n)] = true
				return
			}
			if !errors.As(err, &fe) || !fe.Transient {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	if err != nil {
		t.Fatalf("put once the disk has room: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for key := range acked {
		if _, err := r.Lookup(ctx, canon.KindKnowledge, key); err != nil {
			t.Fatalf("acknowledged %s lost: %v", key, err)
		}
	}
	verifyOK(t, r)
}

// faultCorpus writes n knowledge documents, each with a marker in its
// text, compacts them into sstables of small blocks, and closes the
// store: what the read tests open.
func faultCorpus(t *testing.T, n int) (string, *Options) {
	t.Helper()
	dir := t.TempDir()
	opts := &Options{BlockSize: 1024, BlockCompression: "none"}
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]Document, n)
	for i := range docs {
		docs[i] = Document{Body: []byte(fmt.Sprintf(`{"node_id":"n-%04d","text":"marker-%04d-%s"}`, i, i, strings.Repeat("q", 100)))}
	}
	for i := range docs { // one receipt per document
		if _, err := s.Put(context.Background(), docs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, opts
}

// TestFaultReads makes every sstable read fail (EIO) or return flipped
// bytes, under Get, Scan and Verify: each must fail with an error naming
// what it read, never panic (Pebble's default reaction to a checksum
// failure is a fatal error), and all reads work again once the fault
// clears.
func TestFaultReads(t *testing.T) {
	dir, opts := faultCorpus(t, 300)
	for _, tc := range []struct {
		kind     faultfs.Kind
		sentinel error
	}{
		{faultfs.ReadError, syscall.EIO},
		{faultfs.Corrupt, ErrCorrupt},
	} {
		t.Run(tc.kind.String(), func(t *testing.T) {
			ffs := faultfs.New(vfs.Default)
			o := *opts
			o.FS = ffs
			o.CacheSize = 1 // nothing stays cached: every read meets the disk
			s, err := Open(dir, &o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			ffs.Set(tc.kind, "*.sst")

			_, err = s.Lookup(ctx, canon.KindKnowledge, "n-0150")
			if !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), ".sst") ||
				!strings.Contains(err.Error(), "reading ") {
				t.Fatalf("Lookup under %s: %v, want %v naming the key and the file", tc.kind, err, tc.sentinel)
			}
			t.Logf("Lookup: %v", err)
			if tc.kind == faultfs.Corrupt && !strings.Contains(err.Error(), "aqlstore verify") {
				t.Fatalf("a damaged read does not say how to find the damage: %v", err)
			}

			n := 0
			for doc, err := range s.Scan(ctx, canon.KindKnowledge) {
				if err != nil {
					if !errors.Is(err, tc.sentinel) {
						t.Fatalf("Scan under %s: %v", tc.kind, err)
					}
					t.Logf("Scan (after %d documents): %v", n, err)
					break
				}
				if doc == nil {
					t.Fatal("Scan yielded no document and no error")
				}
				n++
			}
			if n == 300 {
				t.Fatalf("Scan read all 300 documents under %s", tc.kind)
			}

			rep, err := s.Verify(ctx)
			switch tc.kind {
			case faultfs.Corrupt: // damage is a finding: the report names the file
				if err != nil || rep.OK() || len(rep.Damaged) == 0 || !strings.HasSuffix(rep.Damaged[0].File, ".sst") {
					t.Fatalf("Verify under corrupt reads: %v, %+v", err, rep)
				}
				// Every read fails: Verify gives up on the file after a few
				// probes and names everything in it unreadable.
				if lo, hi, ok := damagedRange(rep.Problems, "documents", 1); !ok || lo != 1 || hi != 300 {
					t.Fatalf("Verify under corrupt reads names documents %d to %d (%v), want 1 to 300: %q",
						lo, hi, ok, rep.Problems)
				}
				t.Logf("Verify: %d problems, first %q", rep.Count, rep.Problems[0])
			default: // not damage: Verify cannot read, and says so
				if !errors.Is(err, syscall.EIO) {
					t.Fatalf("Verify under read errors: %v, %+v", err, rep)
				}
				t.Logf("Verify: %v", err)
			}
			injected := ffs.Count(tc.kind)

			ffs.Clear()
			if _, err := s.Lookup(ctx, canon.KindKnowledge, "n-0150"); err != nil {
				t.Fatalf("Lookup after the fault cleared: %v", err)
			}
			rep = verifyOK(t, s)
			t.Logf("%d %s faults injected; after they cleared: %d documents, verify ok", injected, tc.kind, rep.Documents)
		})
	}
}

// TestVerifyPinpointsDamage flips one byte on disk in three places of a
// compacted store: in the block holding the body of document 201 (inline
// in its record), the one holding the record of document 101, and the
// one holding receipt 301. The store
// must still open, reads of the damaged keys must fail naming the file,
// reads elsewhere must work, and Verify must name the file and each
// damaged range, and check everything around them.
func TestVerifyPinpointsDamage(t *testing.T) {
	dir, opts := faultCorpus(t, 400)
	ctx := context.Background()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Lookup(ctx, canon.KindKnowledge, "n-0100")
	if err != nil {
		t.Fatal(err)
	}
	receipted, err := s.Lookup(ctx, canon.KindKnowledge, "n-0300")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if rec.Num != 101 || receipted.Num != 301 {
		t.Fatalf("documents numbered %d and %d, want 101 and 301", rec.Num, receipted.Num)
	}
	recordSig := append(append([]byte{recordVersion}, rec.ID[:]...), 0, byte(len(canon.KindKnowledge)))
	file := flipOnDisk(t, dir, []byte("marker-0200-"), recordSig, []byte(receipted.ID.String()))

	s, err = Open(dir, opts)
	if err != nil {
		t.Fatalf("open with a damaged data block: %v", err)
	}
	defer s.Close()
	if _, err := s.Lookup(ctx, canon.KindKnowledge, "n-0200"); !errors.Is(err, ErrCorrupt) ||
		!strings.Contains(err.Error(), "reading document 201") || !strings.Contains(err.Error(), file) {
		t.Fatalf("read of the damaged body: %v", err)
	} else {
		t.Logf("read of the damaged body: %v", err)
	}
	for _, key := range []string{"n-0000", "n-0399"} {
		if _, err := s.Lookup(ctx, canon.KindKnowledge, key); err != nil {
			t.Fatalf("read of %s, far from the damage: %v", key, err)
		}
	}

	rep, err := s.Verify(ctx)
	if err != nil {
		t.Fatalf("Verify of a damaged store: %v (damage is a finding, not an error)", err)
	}
	for _, p := range rep.Problems {
		t.Logf("problem: %s", p)
	}
	if len(rep.Damaged) != 1 || rep.Damaged[0].File != file {
		t.Fatalf("Damaged = %+v, want the one file %s", rep.Damaged, file)
	}
	for _, want := range []struct {
		what string
		num  uint64
	}{{"documents", 101}, {"documents", 201}, {"receipts", 301}} {
		lo, hi, ok := damagedRange(rep.Problems, want.what, want.num)
		if !ok || hi-lo > 40 {
			t.Errorf("Verify does not pinpoint %s %d: range %d to %d (found %v)", want.what, want.num, lo, hi, ok)
		}
	}
	// Everything outside the damaged blocks was read and checked.
	if rep.Documents < 360 || rep.Blobs < 360 || rep.Receipts < 360 {
		t.Errorf("Verify read %d documents, %d blobs, %d receipts around the damage; want most of 400",
			rep.Documents, rep.Blobs, rep.Receipts)
	}
}

// TestOpenRefusesDamagedMetadata damages the block holding the store's
// metadata: Open must refuse with ErrCorrupt naming the file and saying
// how to recover (verify cannot run on a store that does not open).
func TestOpenRefusesDamagedMetadata(t *testing.T) {
	dir, opts := faultCorpus(t, 100)
	file := flipOnDisk(t, dir, []byte("chain_head"))
	s, err := Open(dir, opts)
	if err == nil {
		s.Close()
		t.Fatal("a store with damaged metadata opened")
	}
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "restore") {
		t.Fatalf("Open: %v, want ErrCorrupt naming %s and the way out", err, file)
	}
	t.Logf("Open: %v", err)
}

// flipOnDisk is faultfs.FlipOnDisk, failing the test on an error.
func flipOnDisk(t *testing.T, dir string, markers ...[]byte) string {
	t.Helper()
	path, err := faultfs.FlipOnDisk(dir, markers...)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// damagedRange finds Verify's "<what> A to B: unreadable" or "<one> A:
// unreadable" problem that holds num.
func damagedRange(problems []string, what string, num uint64) (lo, hi uint64, ok bool) {
	one := strings.TrimSuffix(what, "s")
	for _, p := range problems {
		if !strings.Contains(p, "unreadable, in damaged file") {
			continue
		}
		if n, _ := fmt.Sscanf(p, what+" %d to %d:", &lo, &hi); n == 2 && lo <= num && num <= hi {
			return lo, hi, true
		}
		if n, _ := fmt.Sscanf(p, one+" %d:", &lo); n == 1 && lo == num {
			return lo, lo, true
		}
	}
	return 0, 0, false
}

// stopChildEnv makes the test binary the child of a test that expects a
// fault to end the process: "kind:pattern:dir".
const stopChildEnv = "AQLSTORE_FAULT_STOP_CHILD"

// TestFaultManifestStopsProcess shows what a failure to write or sync
// the MANIFEST does: Pebble calls Logger.Fatalf from its flush, and the
// store's logger ends the process with a message saying what failed and
// what to do (kv_fault.go says why ending it is the safe outcome).
func TestFaultManifestStopsProcess(t *testing.T) {
	if stopChild(t) {
		return
	}
	for _, kind := range []faultfs.Kind{faultfs.WriteError, faultfs.SyncError, faultfs.NoSpace} {
		t.Run(kind.String(), func(t *testing.T) {
			dir, acked, msg, code := stopsProcess(t, "TestFaultManifestStopsProcess", kind, "MANIFEST-*")
			if !strings.Contains(msg, "pebble: fatal: ") || !strings.Contains(msg, "MANIFEST") ||
				!strings.Contains(msg, "open the store again") {
				t.Fatalf("the child died without saying why:\n%s", msg)
			}
			line, _, _ := strings.Cut(msg[strings.Index(msg, "pebble: fatal: "):], "\n")
			t.Logf("child exit %d: %s", code, line)
			reopenAcked(t, dir, acked)
		})
	}
}

// TestFaultWALRotationStopsProcess fails the creation of the next WAL,
// which Pebble meets when it switches memtables: it panics in rotateWAL
// with its DB mutex released, and the Go runtime aborts the process while
// unwinding (kv_fault.go). The process must end, naming the file and the
// error, and the store must open afterwards with every acknowledged
// document.
func TestFaultWALRotationStopsProcess(t *testing.T) {
	if stopChild(t) {
		return
	}
	dir, acked, msg, code := stopsProcess(t, "TestFaultWALRotationStopsProcess", faultfs.CreateError, "*.log")
	if !strings.Contains(msg, "cannot create its next write-ahead log") || !strings.Contains(msg, ".log: input/output error") {
		t.Fatalf("the child died without naming the WAL's error:\n%s", msg)
	}
	for _, line := range strings.Split(msg, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "aqlstore: ") || strings.HasPrefix(line, "fatal error: ") {
			t.Logf("child exit %d: %s", code, line)
		}
	}
	reopenAcked(t, dir, acked)
}

// stopsProcess runs test in a child process that puts documents, printing
// each acknowledged one, and injects kind into the files matching pattern
// after 100 of them. The child must die of it, within hangLimit. It
// returns the store's directory, the acknowledged keys, the child's
// stderr and its exit code.
func stopsProcess(t *testing.T, test string, kind faultfs.Kind, pattern string) (string, map[string]bool, string, int) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d:%s:%s", stopChildEnv, kind, pattern, dir))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("the child hung after the fault\nstderr: %s", stderr.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the child survived a %s on %s (err %v)\nstdout: %s", kind, pattern, err, out)
	}
	acked := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if key, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
			acked[key] = true
		}
	}
	if len(acked) < 100 {
		t.Fatalf("the child acknowledged only %d documents\nstderr: %s", len(acked), stderr.String())
	}
	return dir, acked, stderr.String(), exit.ExitCode()
}

// reopenAcked opens the store in dir as a new process would and checks
// that every acknowledged document is there and that it verifies.
func reopenAcked(t *testing.T, dir string, acked map[string]bool) {
	t.Helper()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("open after the process stopped: %v", err)
	}
	defer s.Close()
	for key := range acked {
		if _, err := s.Lookup(context.Background(), canon.KindKnowledge, key); err != nil {
			t.Fatalf("acknowledged %s lost: %v", key, err)
		}
	}
	rep := verifyOK(t, s)
	t.Logf("reopened: all %d acknowledged documents present, %d documents, verify ok", len(acked), rep.Documents)
}

// stopChild runs the child's side when this process is one, and reports
// whether it was: it puts documents into a store with a small memtable,
// so that flushes and WAL switches come often, and injects the fault
// after 100 acknowledgements. The fault must end the process.
func stopChild(t *testing.T) bool {
	spec := os.Getenv(stopChildEnv)
	if spec == "" {
		return false
	}
	parts := strings.SplitN(spec, ":", 3)
	var kind faultfs.Kind
	if len(parts) != 3 {
		t.Fatalf("bad %s %q", stopChildEnv, spec)
	}
	if _, err := fmt.Sscanf(parts[0], "%d", &kind); err != nil {
		t.Fatal(err)
	}
	ffs := faultfs.New(vfs.Default)
	s, err := Open(parts[2], &Options{FS: ffs, MemTableSize: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for n := 0; n < 20000; n++ {
		if n == 100 {
			ffs.Set(kind, parts[1])
		}
		if _, err := s.Put(ctx, faultDoc(0, n)); err != nil {
			t.Fatalf("put %d: %v", n, err)
		}
		fmt.Printf("ack w0-%d\n", n)
	}
	t.Fatalf("20000 puts with a %s on %s, and the process goes on", kind, parts[1])
	return true
}
