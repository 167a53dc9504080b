package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
	"github.com/aqlstore/aqlstore/store/faultfs"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Disk faults under queries, through the planner (index.Open's index) and
// the full scan. A query that cannot read must fail, with an error naming
// what it read; it must never panic, nor answer from what it happened to
// read (a silently shorter candidate list is a wrong answer). Queries
// write nothing, so write faults must not touch them. After any fault the
// planner and the full scan agree again.

// faultIntent selects every document with a marker: the planner's
// n-gram postings and the evaluator both read the disk.
const faultIntent = `{"intent_id":"urn:oap:intent:fault","issuer_did":"did:web:fault.example","category":"knowledge",
 "constraints":{"all_of":[{"path":"/text","operator":"contains","value":"marker-01"},{"path":"/n","operator":"gte","value":0}]},
 "projection":{"include":["/node_id","/n"]},
 "validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},
 "resolution_policy":"full_set","signature":{"alg":"EdDSA","value":"x"}}`

// faultDocs is the number of documents the read tests store; those with
// numbers 100 to 199 match faultIntent.
const faultDocs = 300

func faultBody(i int) []byte {
	return []byte(fmt.Sprintf(`{"node_id":"n-%04d","n":%d,"text":"marker-%04d %s"}`, i, i, i, strings.Repeat("q", 100)))
}

// faultResolve resolves faultIntent, through the planner when ix is set;
// it fails the test if Resolve does not return within a generous bound.
func faultResolve(t *testing.T, s *store.Store, ix *index.Index) (*Response, error) {
	t.Helper()
	in, err := aql.Parse([]byte(faultIntent), nil)
	if err != nil {
		t.Fatal(err)
	}
	var resp *Response
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err = Resolve(context.Background(), s, in, &Options{Signer: testSigner(), At: at, Index: ix, PageSize: 1000})
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("Resolve under a disk fault did not return: it hangs")
	}
	return resp, err
}

// TestFaultQueries runs the intent through the planner and the full scan
// under each fault kind, on a store whose documents and postings are all
// in sstables, opened afresh for every case so that its query reads
// the files.
func TestFaultQueries(t *testing.T) {
	dir := t.TempDir()
	opts := &store.Options{BlockSize: 1024, BlockCompression: "none"}
	s, _, err := index.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range faultDocs {
		if _, err := s.Put(ctx, store.Document{Body: faultBody(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	ffs := faultfs.New(vfs.Default)
	o := *opts
	o.FS, o.CacheSize = ffs, 1
	// Pebble's block cache holds the blocks a query read, beside the
	// memtables, whatever CacheSize says: every case opens the store
	// afresh, so its query meets the disk.
	open := func(t *testing.T) (*store.Store, *index.Index) {
		s, ix, err := index.Open(dir, &o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, ix
	}
	s, ix, err := index.Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	want := cleanAnswer(t, s, ix, 100)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		kind     faultfs.Kind
		sentinel error // nil: the query must succeed, it writes nothing
	}{
		{faultfs.ReadError, syscall.EIO},
		{faultfs.Corrupt, store.ErrCorrupt},
		{faultfs.WriteError, nil},
		{faultfs.SyncError, nil},
		{faultfs.NoSpace, nil},
	} {
		for _, path := range []struct {
			name    string
			planned bool
		}{{"planner", true}, {"full scan", false}} {
			t.Run(tc.kind.String()+"/"+path.name, func(t *testing.T) {
				s, ix := open(t)
				if !path.planned {
					ix = nil
				}
				before := ffs.Count(tc.kind)
				ffs.Set(tc.kind) // every file
				resp, err := faultResolve(t, s, ix)
				ffs.Clear()
				injected := ffs.Count(tc.kind) - before
				if tc.sentinel == nil {
					if err != nil {
						t.Fatalf("a query under %s failed: %v (queries write nothing)", tc.kind, err)
					}
					if got := responseJSON(resp); got != want {
						t.Fatalf("a query under %s answered differently:\n got %s\nwant %s", tc.kind, got, want)
					}
					t.Logf("%d %s faults injected: the query wrote nothing and answered in full", injected, tc.kind)
					return
				}
				if err == nil {
					t.Fatalf("a query under %s (%d faults injected) answered %d candidates, want an error",
						tc.kind, injected, len(resp.Candidates))
				}
				if !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), ".sst") {
					t.Fatalf("a query under %s failed with %v, want %v naming the file", tc.kind, err, tc.sentinel)
				}
				t.Logf("%d %s faults injected: %v", injected, tc.kind, err)
				if got := responseJSON(mustResolve(t, s, ix)); got != want {
					t.Fatalf("after the fault cleared the answer differs:\n got %s\nwant %s", got, want)
				}
			})
		}
	}
}

// cleanAnswer resolves faultIntent through the planner and the full scan
// with no fault, checks they agree and that they select n documents (of
// numbers 100 to 199), and returns the candidates.
func cleanAnswer(t *testing.T, s *store.Store, ix *index.Index, n int) string {
	t.Helper()
	planned := mustResolve(t, s, ix)
	full := mustResolve(t, s, nil)
	if a, b := responseJSON(planned), responseJSON(full); a != b {
		t.Fatalf("planner and full scan differ:\nplanner %s\nfull    %s", a, b)
	}
	if len(full.Candidates) != n {
		t.Fatalf("the intent selects %d documents, want %d", len(full.Candidates), n)
	}
	return responseJSON(full)
}

func mustResolve(t *testing.T, s *store.Store, ix *index.Index) *Response {
	t.Helper()
	resp, err := faultResolve(t, s, ix)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	return resp
}

// TestFaultPutsKeepIndexConsistent fails the write-ahead log under puts
// into an indexed store: the index must move with the documents or not
// at all. While the store refuses writes, queries still answer; after a
// reopen index.Check, Verify and the planner against the full scan all
// agree, with every acknowledged document found. The memtable is grown
// first, so that no WAL switch falls in the fault: Pebble ends the
// process on a WAL fault it meets while switching (store's
// TestFaultWALRotationStopsProcess).
func TestFaultPutsKeepIndexConsistent(t *testing.T) {
	for _, kind := range []faultfs.Kind{faultfs.WriteError, faultfs.SyncError, faultfs.NoSpace} {
		t.Run(kind.String(), func(t *testing.T) {
			dir := t.TempDir()
			ffs := faultfs.New(vfs.Default)
			s, ix, err := index.Open(dir, &store.Options{FS: ffs})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			grown := growMemtable(t, s)
			acked := 0
			for i := 0; i < 1000; i++ {
				if i == 150 {
					ffs.Set(kind, "*.log", "*.sst")
				}
				if _, err = s.Put(ctx, store.Document{Body: faultBody(i)}); err != nil {
					break
				}
				acked++
			}
			if !errors.Is(err, store.ErrDiskFault) {
				t.Fatalf("puts under %s: %v, want store.ErrDiskFault", kind, err)
			}
			t.Logf("after %d acknowledged puts (%d faults injected): %v", acked, ffs.Count(kind), err)
			if acked < 150 {
				t.Fatalf("only %d puts before the fault", acked)
			}
			// Reads go on while writes are refused; the planner still
			// agrees with the full scan. The put that met the fault is
			// visible: Pebble applied it to the memtable before the WAL
			// failed, and its outcome is unknown until the reopen.
			cleanAnswer(t, s, ix, min(acked+1, 200)-100)
			ffs.Clear()
			if err := s.Close(); err != nil {
				t.Logf("close after the fault: %v", err)
			}

			s, ix, err = index.Open(dir, nil)
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer s.Close()
			crep, err := index.Check(ctx, s)
			if err != nil || !crep.OK() {
				t.Fatalf("index.Check after the fault: %v %v", err, crep.Problems)
			}
			vrep, err := s.Verify(ctx)
			if err != nil || !vrep.OK() {
				t.Fatalf("Verify after the fault: %v %v", err, vrep.Problems)
			}
			present := vrep.Documents - grown
			if present < acked {
				t.Fatalf("%d documents after the reopen, %d acknowledged", present, acked)
			}
			cleanAnswer(t, s, ix, min(present, 200)-100)
			t.Logf("reopened: %d documents (%d acknowledged), index.Check and Verify ok, planner = full scan",
				present, acked)
		})
	}
}

// growMemtable switches memtables (a put and a compaction, six times) so
// that the current one holds 16 MiB: Pebble starts with 256 KiB and
// doubles at each switch. It returns the number of documents it put.
func growMemtable(t *testing.T, s *store.Store) int {
	t.Helper()
	ctx := context.Background()
	for n := range 6 {
		if _, err := s.Put(ctx, store.Document{Body: []byte(fmt.Sprintf(`{"node_id":"grow-%d"}`, n))}); err != nil {
			t.Fatal(err)
		}
		if err := s.Compact(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return 6
}
