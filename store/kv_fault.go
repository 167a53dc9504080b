package store

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// What Pebble does when the disk fails, and what the store does about it.
// This file is part of the kv adapter: with kv.go, the only code that
// touches Pebble.
//
// Writes. Pebble appends a batch to the write-ahead log (WAL) and applies
// it to the memtable; a flusher goroutine writes and fsyncs the WAL. When
// the write or the fsync fails, the batches waiting for that sync get the
// error, but each is already in the memtable, visible to reads, and the
// flusher's error is sticky: the next commit that fills a WAL block
// panics inside Pebble (commitWrite's panic(err)) while it holds the
// commit pipeline's mutex, after which every commit, Flush and Close
// blocks forever. So the store stops at the first failure: watchWAL
// notes it as the flusher meets it, the mutation waiting for that sync
// gets a *FaultError, and every later mutation is refused without
// reaching Pebble until the store is closed and opened again. A panic
// that still comes out of a commit (one already inside Pebble when the
// flusher failed) is recovered in kv.apply; the store is then wedged:
// Close leaves Pebble alone, since it would block, and only a new process
// can open the directory (the WAL on disk is intact up to the failure).
//
// One case ends the process, and nothing outside Pebble can stop it: a
// WAL failure met while Pebble switches to a new WAL, at every memtable
// switch (closing the old log flushes and syncs its tail; the new one is
// created). rotateWAL then panics with DB.mu released, and unwinding
// through its caller's deferred DB.mu.Unlock makes the Go runtime abort
// ("fatal error: sync: unlock of unlocked mutex"), which no recover
// catches. It is fail-stop: acknowledged writes are in the synced WAL and
// the next Open replays them (TestFaultWALRotationStopsProcess).
//
// Background work. A flush or compaction whose sstable write fails (EIO,
// ENOSPC) reports a background error, and Pebble tries again (a flush at
// once, in a loop that burns a core while the disk stays full): nothing
// is lost, and the work completes once the disk has room. Meanwhile the
// store refuses mutations with a *FaultError (Transient), because Pebble
// would otherwise let them fill memtables until commits stall inside it
// for as long as the disk is full; the refusal lifts by itself with the
// next flush or compaction that succeeds. Writing or syncing the
// MANIFEST, which names the sstables that make up the database, is
// different: Pebble treats its failure as fatal and calls Logger.Fatalf,
// because its in-memory version would no longer match the disk. Fatalf
// must not return (at some call sites Pebble would carry on, e.g. report
// a failed commit as a success), so pebbleLogger.Fatalf logs the error
// and panics; on Pebble's background goroutine that ends the process.
// That is the safe outcome: every acknowledged write is in the synced WAL
// and the next Open replays it (TestFaultManifestStopsProcess shows it).
//
// Reads. Every sstable block carries a checksum. A block whose bytes do
// not match it fails the read with a corruption error that names the file
// and its key range, and Pebble then reports a DataCorruption event,
// whose default handler is Logger.Fatalf: a flipped bit on disk would
// kill the process from whichever goroutine read the block, a query or a
// compaction. The store's handler logs the damage instead; the read
// returns ErrCorrupt naming what was being read, the file and its keys;
// and Verify lists every damaged file and checks what it can read around
// them.

// faultState is what a kv knows of disk faults: the first failed commit,
// after which it refuses mutations for good, and the last failed
// background write, after which it refuses them until a flush or
// compaction succeeds again.
type faultState struct {
	noSync     bool         // Options.NoSync: acknowledged writes may not be on disk
	log        *slog.Logger // Options.Logger
	opened     atomic.Bool  // pebble.Open returned: a new WAL now comes from rotateWAL
	mu         sync.Mutex
	first      *FaultError
	background *FaultError
}

// record keeps the first fault and returns the error the mutation that
// met err reports.
func (f *faultState) record(op string, err error, wedged bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.first == nil {
		f.first = &FaultError{Op: op, Err: err, NoSync: f.noSync}
	}
	f.first.Wedged = f.first.Wedged || wedged
	return &FaultError{Op: op, Err: err, Wedged: f.first.Wedged, NoSync: f.noSync}
}

// refusal returns the error of a mutation refused because of a fault, or
// nil when there is none.
func (f *faultState) refusal() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := f.first
	if e == nil {
		e = f.background
	}
	if e == nil {
		return nil
	}
	c := *e
	c.Refused = true
	return &c
}

// wedged reports whether a panic left Pebble's commit pipeline locked.
func (f *faultState) wedged() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.first != nil && f.first.Wedged
}

// closeError explains Pebble's Close error after a fault: it returns the
// WAL's error again, which is no news and no further loss.
func (f *faultState) closeError(err error) error {
	if err == nil || f.refusal() == nil {
		return err
	}
	return fmt.Errorf("after the disk fault the write-ahead log could not be closed cleanly (%w); nothing more "+
		"is lost: open the store again once the disk is healthy", err)
}

// events is the store's Pebble event listener. Damage found on a read is
// logged and returned to the reader, never fatal (see above). A flush or
// compaction that cannot write its sstable (a full disk, an I/O error)
// refuses mutations until one succeeds: Pebble retries a failed flush at
// once and for as long as it fails, and meanwhile every memtable that
// fills joins the queue, until commits stall inside Pebble, which no
// caller can interrupt. Refusing up front turns that stall into an error
// naming the disk's.
func (f *faultState) events(log *slog.Logger) *pebble.EventListener {
	return &pebble.EventListener{
		DataCorruption: func(info pebble.DataCorruptionInfo) {
			log.Error("pebble: damaged database file", "file", info.Path,
				"first", keyName(info.Bounds.Start), "last", keyName(info.Bounds.End.Key), "detail", info.Details)
		},
		BackgroundError: func(err error) {
			log.Error("pebble: background error", "err", err)
			if diskError(err) {
				f.mu.Lock()
				f.background = &FaultError{Op: "writing an sstable (a flush or compaction)", Err: err, Transient: true}
				f.mu.Unlock()
			}
		},
		FlushEnd: func(info pebble.FlushInfo) {
			if info.Err == nil {
				f.recovered()
			}
		},
		CompactionEnd: func(info pebble.CompactionInfo) {
			if info.Err == nil {
				f.recovered()
			}
		},
	}
}

// recovered lifts the refusal a background fault set.
func (f *faultState) recovered() {
	f.mu.Lock()
	f.background = nil
	f.mu.Unlock()
}

// diskError reports whether err is the disk failing a write: what a
// retry cannot help until an operator does something.
func diskError(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EIO) || errors.Is(err, syscall.EROFS) ||
		errors.Is(err, syscall.EDQUOT)
}

// watchWAL marks the store faulted the moment a write or an fsync of the
// write-ahead log fails, in Pebble's flusher goroutine, before Pebble
// hands the error to the commits waiting for that sync: the next commit
// is refused instead of running into the log writer's sticky error
// (see above). Without it a NoSync store, whose commits never wait for a
// sync, would only learn of the failure from a panic inside Pebble.
type watchWAL struct {
	vfs.FS
	f *faultState
}

func (w watchWAL) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	file, err := w.FS.Create(name, category)
	w.f.lastWords(name, err)
	return w.wrap(name, file, err)
}

func (w watchWAL) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	file, err := w.FS.ReuseForWrite(oldname, newname, category)
	w.f.lastWords(newname, err)
	return w.wrap(newname, file, err)
}

func (w watchWAL) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	file, err := w.FS.OpenReadWrite(name, category, opts...)
	return w.wrap(name, file, err)
}

// Unwrap returns the wrapped FS (Pebble's vfs.Root follows it).
func (w watchWAL) Unwrap() vfs.FS { return w.FS }

func (w watchWAL) wrap(name string, file vfs.File, err error) (vfs.File, error) {
	if err != nil || !strings.HasSuffix(name, ".log") {
		return file, err
	}
	return &walFile{File: file, f: w.f}, nil
}

// walFile is a write-ahead log file whose failed writes and syncs mark
// the store faulted.
type walFile struct {
	vfs.File
	f *faultState
}

func (w *walFile) Write(p []byte) (int, error) {
	n, err := w.File.Write(p)
	w.f.walFailed(err)
	return n, err
}

func (w *walFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := w.File.WriteAt(p, off)
	w.f.walFailed(err)
	return n, err
}

func (w *walFile) Sync() error {
	err := w.File.Sync()
	w.f.walFailed(err)
	return err
}

func (w *walFile) SyncData() error {
	err := w.File.SyncData()
	w.f.walFailed(err)
	return err
}

func (w *walFile) SyncTo(length int64) (bool, error) {
	full, err := w.File.SyncTo(length)
	w.f.walFailed(err)
	return full, err
}

// walFailed keeps err as the first fault, when it is one.
func (f *faultState) walFailed(err error) {
	if err == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.first == nil {
		f.first = &FaultError{Op: "write-ahead log write or sync", Err: err, NoSync: f.noSync}
		f.log.Error("aqlstore: write-ahead log write or sync failed: writes are refused until the store is reopened",
			"err", err)
	}
}

// lastWords says why the process is about to end when Pebble, once open,
// cannot create its next WAL: rotateWAL panics on that, and the Go runtime
// aborts while unwinding (see above) with a message that names neither
// the file nor the error. It goes to stderr as well as to the logger,
// because the default logger discards and the runtime's own report goes
// to stderr too.
func (f *faultState) lastWords(name string, err error) {
	if err == nil || !f.opened.Load() || !strings.HasSuffix(name, ".log") {
		return
	}
	msg := fmt.Sprintf("aqlstore: pebble cannot create its next write-ahead log (%v) and ends the process; "+
		"once the disk is healthy, open the store again: acknowledged writes are in the previous log", err)
	f.log.Error(msg)
	fmt.Fprintln(os.Stderr, msg)
}

// recoverCommit turns a panic out of Pebble's commit path into a fault
// of the mutation applying b. Pebble may still hold b (it sits in the
// commit queue), so b is never recycled.
func (k *kv) recoverCommit(b *batch, err *error) {
	r := recover()
	if r == nil {
		return
	}
	b.stuck, b.async = true, false
	cause, ok := r.(error)
	if !ok {
		cause = fmt.Errorf("%v", r)
	}
	*err = k.fault.record("commit to the write-ahead log", cause, true)
}

// pebbleFatal is the panic value of pebbleLogger.Fatalf.
type pebbleFatal struct{ msg string }

func (f *pebbleFatal) Error() string {
	return "pebble: fatal: " + f.msg + " (aqlstore stops here: Pebble cannot go on without risking acknowledged " +
		"writes; once the disk is healthy, open the store again: acknowledged writes are replayed from the " +
		"write-ahead log; then run `aqlstore verify`)"
}

// Damage is a database file whose bytes fail Pebble's checks (a block
// checksum, a table footer), and the keys it holds.
type Damage struct {
	File   string // path of the file
	First  string // the first key it holds, named by keyName ("document 3")
	Last   string // the last key it holds
	Detail string // Pebble's account, e.g. a checksum mismatch at an offset
}

func (d *Damage) String() string {
	return fmt.Sprintf("database file %s is damaged (it holds %s … %s): %s", d.File, d.First, d.Last, d.Detail)
}

// damageOf returns the damage a Pebble corruption error describes, and
// the first key after the damaged file, where a scan can go on (nil when
// Pebble did not say which keys the file holds).
func damageOf(err error) (*Damage, []byte, bool) {
	if err == nil || !pebble.IsCorruptionError(err) {
		return nil, nil, false
	}
	info := pebble.ExtractDataCorruptionInfo(err)
	if info == nil {
		return &Damage{File: "(unknown)", First: "?", Last: "?", Detail: firstLine(err)}, nil, true
	}
	d := &Damage{File: info.Path, First: keyName(info.Bounds.Start), Last: keyName(info.Bounds.End.Key),
		Detail: firstLine(info.Details)}
	var resume []byte
	if end := info.Bounds.End.Key; end != nil {
		resume = append([]byte(nil), end...)
		if info.Bounds.End.Kind != 0 { // inclusive: the file holds end itself
			resume = append(resume, 0)
		}
	}
	return d, resume, true
}

// firstLine is err's message without the lines Pebble joins to it (a
// corruption error carries a "<corruption detail carrier>" line).
func firstLine(err error) string {
	if err == nil {
		return ""
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// readError names what was being read when Pebble failed: the key, and
// for damage the file, its keys and the way out.
func readError(key []byte, err error) error {
	if err == nil {
		return nil
	}
	if d, _, ok := damageOf(err); ok {
		way := "run `aqlstore verify` to list every damaged document, then restore the store from a backup or " +
			"an earlier export"
		if len(key) > 0 && key[0] == prefixMeta { // read by Open: verify cannot run
			way = "the store cannot be opened: restore its directory from a backup, or import an earlier " +
				"export into a new store"
		}
		return &damageError{err: err, msg: fmt.Sprintf("%v: reading %s: %s; %s", ErrCorrupt, keyName(key), d, way)}
	}
	if errors.Is(err, pebble.ErrClosed) {
		return fmt.Errorf("reading %s: %w", keyName(key), ErrClosed)
	}
	return fmt.Errorf("reading %s: %w", keyName(key), err)
}

// damageError is ErrCorrupt for a read Pebble found damaged; it keeps
// Pebble's error, whose details Verify reads back (damageOf).
type damageError struct {
	msg string
	err error
}

func (e *damageError) Error() string   { return e.msg }
func (e *damageError) Unwrap() []error { return []error{ErrCorrupt, e.err} }

// walk is view.scan that reads around damaged files. When a read fails
// on damage, the keys from where the scan stood to the next key it can
// try go to bad as [lo, hi) (hi nil: to end), and the scan starts again
// at hi. next gives the key after a key, from what the caller knows of
// the key space (the next document number), or nil when none follows.
// Pebble names only the damaged file, not the block, so walk tries key
// after key; after maxProbes keys in a row that it cannot read, it skips
// to the end of the file. fn's own errors and failures that are not
// damage end the walk.
func (v *view) walk(start, end []byte, fn func(key, value []byte) error, next func(key []byte) []byte,
	bad func(lo, hi []byte, d *Damage)) error {
	probes := 0
	for from := start; from != nil && (end == nil || bytes.Compare(from, end) < 0); {
		var last []byte
		var ferr error
		err := v.scan(from, end, func(key, value []byte) error {
			last = key
			ferr = fn(key, value)
			return ferr
		})
		d, fileEnd, ok := damageOf(err)
		if err == nil || ferr != nil || !ok {
			return err
		}
		lo := from
		if last != nil {
			probes = 0
			if lo = next(last); lo == nil {
				bad(nil, nil, d) // beyond every key the caller expects
				return nil
			}
		}
		hi := next(lo)
		if probes++; probes >= maxProbes && fileEnd != nil && bytes.Compare(fileEnd, lo) > 0 {
			hi = fileEnd
			if end != nil && bytes.Compare(hi, end) > 0 {
				hi = nil
			}
		}
		bad(lo, hi, d)
		from = hi
	}
	return nil
}

// maxProbes is how many unreadable keys in a row walk tries one by one
// before it gives up on the rest of the damaged file.
const maxProbes = 64
