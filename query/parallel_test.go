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
// exact plan are judged on several goroutines, and the response is the
// one the full scan gives, judging one document at a time: the same
// candidates, ranks, records and payloads, and the same rejections
// (projection failures and documents below the quality floor, spread
// over every chunk). Run it with -race.
func TestParallelJudgingAnswersAsOneGoroutine(t *testing.T) {
	prev := runtime.GOMAXPROCS(4) // several workers, whatever the machine
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	s, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true, MemTableSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
	intent := shoeIntent("ranked_set", `,"quality_floor":{"performance_score":0.6}`)
	var plan *Plan
	parallel := resolve(t, s, intent, &Options{Index: ix, MaxRejected: 1 << 20, Explain: func(p *Plan) { plan = p }})
	if plan == nil || !planExact(plan) || plan.Candidates.GetCardinality() < parallelMin {
		t.Fatalf("the plan is not a large exact one (%+v): the test no longer judges in parallel", plan)
	}
	if len(parallel.Candidates) == 0 || len(parallel.Rejected) == 0 {
		t.Fatalf("%d accepted, %d rejected: the test needs both", len(parallel.Candidates), len(parallel.Rejected))
	}
	serial := resolve(t, s, intent, &Options{MaxRejected: 1 << 20})
	if a, b := responseJSON(parallel), responseJSON(serial); a != b {
		t.Fatalf("judged in parallel:\n%.2000s\none at a time:\n%.2000s", a, b)
	}
	if parallel.RejectedTotal != serial.RejectedTotal || parallel.Evaluated != serial.Evaluated {
		t.Errorf("parallel: %d rejected of %d evaluated; serial: %d of %d",
			parallel.RejectedTotal, parallel.Evaluated, serial.RejectedTotal, serial.Evaluated)
	}
}
