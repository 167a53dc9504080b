// Package crashtest is aqlstore's crash-consistency harness: it runs a
// random mixed workload against an indexed store, stops it abruptly at a
// random moment, reopens the store and checks that nothing acknowledged
// was lost, nothing unacknowledged is half there, and the store, its
// indexes and its query planner still agree with each other.
//
// The workload (Run) has writers and a reader working at once: single
// puts, batches, bulk batches, bulk loads (store.Loader, whose runs spill
// and whose sstables are ingested in one step), deletes, re-puts of deleted documents,
// PAIRL messages (some replying to earlier ones), AIDP intent envelopes
// with their observations, an export of one tenant imported under a new
// owner, and a goroutine resolving AQL intents (through the planner or by
// full scan) while the writes go on. Every mutation is announced by an
// Event before it starts ("begin", naming every document it puts or
// deletes) and after it returns ("ack"). The Model replays those events:
// an acknowledged mutation must be in the store; a begun one that was not
// acknowledged (at most one per writer) must be all there or not there
// at all, except an import, which commits in batches and must be there as
// a prefix of its documents.
//
// Two ways of stopping are tested (crash_test.go):
//
//   - TestCrashKill runs the workload in a child process (the test binary
//     itself, see TestMain) and kills it with SIGKILL, one cycle in eight
//     while it opens the store. Data the kernel already holds survives such
//     a kill, synced or not.
//   - TestCrashPowerLoss runs it in process on Pebble's crashable memory
//     file system and takes a crash clone: only what was synced survives
//     (plus, in a third of the cycles, a random half of what was not).
//     This is what shows that an acknowledgement waits for the fsync;
//     TestPowerLossCatchesNoSync shows the check fails on a store that
//     does not wait.
//
// After each stop the harness reopens the store and Check runs, in order:
// store.Verify (what `aqlstore verify` runs: blobs re-hash, keys and
// reference counts agree, the receipt chain is intact), index.Check (what
// `aqlstore check` runs), the settling of the mutations in flight, a
// comparison of every document of the store with the Model (by natural
// key, and by a walk of every document whoever owns it), and random
// intents resolved through the planner and by full scan, which must give
// identical candidates and cursors; a ranked_set's full scan must also
// account for exactly the documents the model says its reader may see.
// A violation fails the test with the cycle, the mutation, what was
// expected and what was found.
//
// The store is kept small so that a cycle stays well under a second and a
// half: a fresh store starts every ResetEvery cycles (deletes only slow
// the growth), and the memtable is small so that flushes and compactions
// happen inside the crash window. Environment:
//
//	AQLSTORE_CRASH_CYCLES  cycles per test (default 30, what `go test` runs)
//	AQLSTORE_CRASH_SEED    repeats a run's random choices (crash moments are timing)
//	AQLSTORE_CRASH_KEEP    a directory that receives, before each reopen, a copy of
//	                       the killed store, so a failing cycle's store can be examined
//
// Nothing here is safe for concurrent use unless its comment says so.
package crashtest
