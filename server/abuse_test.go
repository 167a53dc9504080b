package server

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// abuseDuration is how long TestAbuse attacks: 3 s, or
// AQLSTORE_ABUSE_SECONDS.
func abuseDuration() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("AQLSTORE_ABUSE_SECONDS")); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 3 * time.Second
}

// abuseTally counts the answers of one attack by status.
type abuseTally struct {
	name     string
	mu       sync.Mutex
	byStatus map[int]int
	allowed  []int // statuses this attack may get: answered or refused within a limit
	bad      []string
}

func newTally(name string, allowed ...int) *abuseTally {
	return &abuseTally{name: name, byStatus: map[int]int{}, allowed: allowed}
}

func (a *abuseTally) add(status int, body []byte, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case err != nil:
		a.bad = append(a.bad, "no answer: "+err.Error())
	case !slices.Contains(a.allowed, status):
		a.bad = append(a.bad, fmt.Sprintf("status %d: %.300s", status, body))
	}
	a.byStatus[status]++
}

func (a *abuseTally) total() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, c := range a.byStatus {
		n += c
	}
	return n
}

// abuseWorld is the server under attack and what the attackers share.
type abuseWorld struct {
	ts      *testServer
	hc      *http.Client
	stop    time.Time
	acked   sync.Map // natural keys of offers a put acknowledged
	sent    atomic.Int64
	heapMax atomic.Uint64
}

func (w *abuseWorld) post(path, contentType, token string, body []byte) (int, []byte, error) {
	w.sent.Add(1)
	status, _, b, err := exchange(w.hc, "POST", w.ts.url+path, token, bytes.NewReader(body), "Content-Type", contentType)
	return status, b, err
}

// run calls attack in n goroutines until the attack ends.
func (w *abuseWorld) run(wg *sync.WaitGroup, n int, attack func(worker, round int)) {
	for worker := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; time.Now().Before(w.stop); round++ {
				attack(worker, round)
			}
		}()
	}
}

// deepDoc is a public document nested depth levels deep, its innermost
// member a string of a's that makes ^(a+)+$ backtrack.
func deepDoc(depth int) []byte {
	var b strings.Builder
	b.WriteString(`{"probe": "deep", "n0": `)
	for i := 1; i < depth; i++ {
		fmt.Fprintf(&b, `{"n%d": `, i)
	}
	b.WriteString(`"` + strings.Repeat("a", 30) + `!"`)
	b.WriteString(strings.Repeat("}", depth))
	return []byte(b.String())
}

// longNameDoc is a document nested depth deep whose member names are
// each nameBytes long: every path prefix is long, so its index keys are.
func longNameDoc(round, depth, nameBytes int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"probe": "long-names-%d"`, round)
	for i := range depth {
		fmt.Fprintf(&b, `, "%s%d": {"x": 1`, strings.Repeat("n", nameBytes), i)
	}
	b.WriteString(strings.Repeat("}", depth+1))
	return []byte(b.String())
}

// TestAbuse runs the attacks of issue 17 (items 1-4) at once against a
// live server for a bounded time (abuseDuration): anonymous intents with
// several ** segments over a deeply nested document, documents with long
// member names nested deep, anonymous and
// tenant intents whose regexes backtrack over /**, a flood of large and
// many-document puts, and bodies over a caller's write share. Meanwhile
// tenant B runs selective queries. Every request must be answered or
// refused within its limit, none of B's refused, every acknowledged
// write present afterwards, every request logged, every slot and byte
// given back, and the heap's growth bounded (a generous bound: timing
// and memory are reported, not judged, on a shared machine).
func TestAbuse(t *testing.T) {
	var logged lockedBuffer
	ts := startServer(t, func(c *Config) {
		c.MaxQueries, c.MaxQueriesPerCaller, c.QueryTimeout = 16, 4, 2*time.Second
		c.MaxWriteBytes, c.MaxPutDocuments, c.WriteWait = 8<<20, 2000, 200*time.Millisecond
		c.Logger = slog.New(slog.NewJSONHandler(&logged, nil))
	})
	ctx := context.Background()
	ts.putPublic(string(deepDoc(40)))
	for i := range 20 {
		ts.putPublic(fmt.Sprintf(`{"probe": "slow-%d", "texts": ["%s!", "%s?"]}`, i, strings.Repeat("a", 28), strings.Repeat("a", 29)))
	}
	var own bytes.Buffer
	for i := range 200 {
		fmt.Fprintf(&own, "%s\n", shoe(fmt.Sprintf("b-own-%d", i), i))
	}
	if status, _, body := ts.sendBody("POST", pathDocuments, contentNDJSON, tokenB, own.Bytes(), false); status != 201 {
		t.Fatalf("tenant B's documents: %d %s", status, body)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse

	w := &abuseWorld{ts: ts, hc: &http.Client{Timeout: 30 * time.Second}, stop: time.Now().Add(abuseDuration())}
	queryRefusals := []int{200, http.StatusTooManyRequests, http.StatusServiceUnavailable}
	deep := newTally("** over a deep document (anonymous)", queryRefusals...)
	regex := newTally("backtracking regex over /** (anonymous and tenant A)", queryRefusals...)
	flood := newTally("put flood (tenant A)", 200, 201, http.StatusServiceUnavailable)
	oversize := newTally("bodies over a caller's write share (tenant A)", http.StatusRequestEntityTooLarge)
	// 201, or 400 where member-name and path limits refuse the document.
	longNames := newTally("long member names nested deep (tenant A)", 201, http.StatusBadRequest, http.StatusServiceUnavailable)
	var wg sync.WaitGroup

	deepIntent := intent("discovery", `{"path": "/**/**/**/zz", "operator": "exists", "value": false}`, "")
	w.run(&wg, 8, func(int, int) { deep.add(w.post(pathIntent, contentOAP, "", deepIntent)) })
	leaves := make([]string, 10)
	for i := range leaves {
		leaves[i] = `{"path": "/**", "operator": "matches", "value": "^(a+)+$"}`
	}
	regexIntent := intent("discovery", `{"any_of": [`+strings.Join(leaves, ",")+`]}`, "")
	w.run(&wg, 24, func(worker, _ int) { // more than MaxQueries: without a share per caller, B finds no slot
		token := ""
		if worker%3 == 2 {
			token = tokenA
		}
		regex.add(w.post(pathIntent, contentOAP, token, regexIntent))
	})
	w.run(&wg, 3, func(worker, round int) { // 2,000 documents of 1.5 KB: 3 MB a put
		var b bytes.Buffer
		keys := make([]string, 2000)
		for i := range keys {
			keys[i] = fmt.Sprintf("flood-%d-%d-%d", worker, round, i)
			fmt.Fprintf(&b, `{"offer_id": %q, "category": "flood", "pad": %q}`+"\n", keys[i], strings.Repeat("p", 1500))
		}
		status, body, err := w.post(pathDocuments, contentNDJSON, tokenA, b.Bytes())
		flood.add(status, body, err)
		if err == nil && status/100 == 2 {
			for _, k := range keys {
				w.acked.Store(k, true)
			}
		}
	})
	tooMany := ndjsonOffers("too-many", 2001)
	overShare := bytes.Repeat([]byte(shoe("over-share", 1)+"\n"), (4<<20)/60+1000)
	w.run(&wg, 1, func(_, round int) {
		body := tooMany
		if round%2 == 1 {
			body = overShare
		}
		oversize.add(w.post(pathDocuments, contentNDJSON, tokenA, body))
	})
	w.run(&wg, 1, func(_, round int) {
		longNames.add(w.post(pathDocuments, contentJSON, tokenA, longNameDoc(round, 16, 1000)))
	})
	sampler := make(chan struct{})
	go func() {
		defer close(sampler)
		for time.Now().Before(w.stop) {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > w.heapMax.Load() {
				w.heapMax.Store(ms.HeapInuse)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()

	// Tenant B's selective queries, one at a time, all through the attack.
	var latencies []time.Duration
	var refusedB []string
	for i := 0; time.Now().Before(w.stop); i++ {
		id := fmt.Sprintf("b-own-%d", i%200)
		q := intent("commercial", `{"path": "/offer_id", "operator": "eq", "value": "`+id+`"}`, "")
		start := time.Now()
		status, body, err := w.post(pathIntent, contentOAP, tokenB, q)
		latencies = append(latencies, time.Since(start))
		if err != nil || status != 200 || !bytes.Contains(body, []byte(`"candidate_id":"`+id+`"`)) {
			refusedB = append(refusedB, fmt.Sprintf("%s: %d %v %.300s", id, status, err, body))
		}
	}
	wg.Wait()
	<-sampler

	for _, a := range []*abuseTally{deep, regex, flood, oversize, longNames} {
		t.Logf("%s: %d requests, by status %v", a.name, a.total(), a.byStatus)
		if len(a.bad) > 0 {
			t.Errorf("%s: %d answers outside the limits, first: %s", a.name, len(a.bad), a.bad[0])
		}
	}
	slices.Sort(latencies)
	if len(latencies) == 0 {
		t.Fatal("tenant B sent no query")
	}
	p := func(q float64) time.Duration { return latencies[int(q*float64(len(latencies)-1))] }
	t.Logf("tenant B: %d selective queries, p50 %v, p99 %v, max %v", len(latencies), p(0.5), p(0.99), latencies[len(latencies)-1])
	if len(refusedB) > 0 {
		t.Errorf("tenant B: %d of %d selective queries not answered, first: %s", len(refusedB), len(latencies), refusedB[0])
	}
	growth := int64(w.heapMax.Load()) - int64(base)
	t.Logf("heap in use: %d MiB before the attack, grew by at most %d MiB", base>>20, growth>>20)
	if growth > 1<<30 {
		t.Errorf("the heap grew by %d MiB under attack; the write gate allows 8 MiB of bodies", growth>>20)
	}
	w.checkAftermath(t, ctx, &logged)
}

// checkAftermath checks that every slot and write byte came back, every
// acknowledged document is stored, and every request was logged.
func (w *abuseWorld) checkAftermath(t *testing.T, ctx context.Context, logged *lockedBuffer) {
	t.Helper()
	ts := w.ts
	if n := ts.srv.gates.queries.Load(); n != 0 {
		t.Errorf("%d query slots still taken after the attack", n)
	}
	if n := ts.srv.writes.inUse(); n != 0 {
		t.Errorf("%d write bytes still counted after the attack", n)
	}
	asA := store.WithPrincipal(ctx, tenantA)
	acked, lost := 0, 0
	w.acked.Range(func(k, _ any) bool {
		acked++
		if _, err := ts.st.Lookup(asA, canon.KindOffer, k.(string)); err != nil {
			lost++
		}
		return true
	})
	t.Logf("%d acknowledged flood documents, %d missing", acked, lost)
	if lost > 0 {
		t.Errorf("%d acknowledged documents are not stored", lost)
	}
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(logged.String(), `"msg":"request"`)
	// The setup's requests were logged too: at least every attack request.
	if int64(lines) < w.sent.Load() {
		t.Errorf("%d request lines logged for %d requests sent", lines, w.sent.Load())
	}
}
