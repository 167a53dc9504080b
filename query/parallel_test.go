package query

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
)

// TestParallelJudgingAnswersAsOneGoroutine: the candidates of a large
// exact plan, and the documents of a full scan, are judged on several
// goroutines, and the response is the one judging one document at a
// time gives: the same
// candidates, ranks, records and payloads, and the same rejections
// (projection failures and documents below the quality floor, spread
// over every chunk). Run it with -race.
func TestParallelJudgingAnswersAsOneGoroutine(t *testing.T) {
	prev := runtime.GOMAXPROCS(4) // several workers, whatever the machine
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	s, ix := parallelStore(t)
	intent := shoeIntent("ranked_set", `,"quality_floor":{"performance_score":0.6}`)
	var plan *Plan
	parallel := resolve(t, s, intent, &Options{Index: ix, MaxRejected: 1 << 20, Explain: func(p *Plan) { plan = p }})
	if plan == nil || !planExact(plan) || plan.Candidates.GetCardinality() < parallelMin {
		t.Fatalf("the plan is not a large exact one (%+v): the test no longer judges in parallel", plan)
	}
	if len(parallel.Candidates) == 0 || len(parallel.Rejected) == 0 {
		t.Fatalf("%d accepted, %d rejected: the test needs both", len(parallel.Candidates), len(parallel.Rejected))
	}
	// A walk tally keeps every resolution on one goroutine.
	serial := resolve(t, s, intent, &Options{MaxRejected: 1 << 20, walks: &walkTally{}})
	sameResponse(t, "the plan judged in parallel", parallel, serial)
	// The full scan, in parallel, listing every rejection, a few, or none.
	for _, maxRejected := range []int{1 << 20, 3, -1} {
		scan := resolve(t, s, intent, &Options{MaxRejected: maxRejected})
		serial := resolve(t, s, intent, &Options{MaxRejected: maxRejected, walks: &walkTally{}})
		sameResponse(t, fmt.Sprintf("the full scan in parallel (MaxRejected %d)", maxRejected), scan, serial)
	}
}

// parallelStore is a store of 3×parallelMin candidates, two in three of
// them shoes, every 7th without the projected price.
func parallelStore(t *testing.T) (*store.Store, *index.Index) {
	t.Helper()
	s, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true, MemTableSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	n := 3 * parallelMin
	var batch []store.Document
	for i := range n {
		extra := ""
		if i%7 != 0 {
			extra = fmt.Sprintf(`,"price":{"amount":"%d.00","currency":"EUR"}`, i%50) // every 7th lacks the projected price
		}
		body := fmt.Sprintf(`{"id":"c%05d","score":0.%d,"cost":{"amount":"1.00","currency":"EUR"},`+
			`"quality":{"performance_score":0.%d,"conformance_level":"L2","latency_p99_ms":120},`+
			`"record":{"name":"n%d","category":"%s"%s}}`, i, i%10, 5+i%5, i, []string{"shoes", "shoes", "hats"}[i%3], extra)
		batch = append(batch, store.Document{Body: []byte(body)})
	}
	if _, err := s.PutBatch(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	return s, ix
}

// TestParallelPageAnswersAsOneGoroutine: the documents of a lazy
// full_set page (the page and the rejections it lists) are read and
// judged on several goroutines, and every page, through its cursor, is
// the one judging one document at a time gives.
func TestParallelPageAnswersAsOneGoroutine(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	s, ix := parallelStore(t)
	intent := shoeIntent("full_set", "")
	for _, maxRejected := range []int{1 << 20, 3, -1} {
		cursor, serialCursor := "", ""
		for page := 0; ; page++ {
			var plan *Plan
			parallel := resolve(t, s, intent, &Options{Index: ix, PageSize: 100, MaxRejected: maxRejected, Cursor: cursor,
				Explain: func(p *Plan) { plan = p }})
			if plan == nil || plan.Rank == nil {
				t.Fatalf("page %d was not ranked before it was judged (%+v): the test no longer judges a lazy page", page, plan)
			}
			serial := resolve(t, s, intent, &Options{Index: ix, PageSize: 100, MaxRejected: maxRejected, Cursor: serialCursor,
				walks: &walkTally{}})
			what := fmt.Sprintf("page %d judged in parallel (MaxRejected %d)", page, maxRejected)
			sameResponse(t, what, parallel, serial)
			if len(parallel.Candidates) < pageParallelMin && parallel.NextCursor != "" {
				t.Fatalf("%s: %d candidates, fewer than judged in parallel", what, len(parallel.Candidates))
			}
			if cursor, serialCursor = parallel.NextCursor, serial.NextCursor; cursor == "" {
				if page < 2 {
					t.Fatalf("%d pages: the test needs several", page+1)
				}
				break
			}
		}
	}
}

// sameResponse fails unless got and want are the same response, ids aside.
func sameResponse(t *testing.T, what string, got, want *Response) {
	t.Helper()
	if a, b := responseJSON(got), responseJSON(want); a != b {
		t.Fatalf("%s:\n%.2000s\none at a time:\n%.2000s", what, a, b)
	}
	if got.RejectedTotal != want.RejectedTotal || got.Evaluated != want.Evaluated {
		t.Errorf("%s: %d rejected of %d evaluated; one at a time: %d of %d",
			what, got.RejectedTotal, got.Evaluated, want.RejectedTotal, want.Evaluated)
	}
}
