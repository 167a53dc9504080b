package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
	"github.com/google/go-cmp/cmp"
)

// The cluster differential test: the same random documents and deletes
// go through a 3-shard cluster whose every shard has 2 replicas (three
// in-process NATS servers in a JetStream cluster, streams with 3
// replicas) and into one local store; random
// intents, read as random principals, must get equal answers from both:
// whole responses but for ids, times and signatures, every policy and
// every page, rejections included.

const (
	alice = "did:web:alice.example"
	bob   = "did:web:bob.example" // owns nothing; reads what alice grants him
)

var (
	diffOwners = []string{store.Public, alice}
	diffAs     = []string{"x", "y", "sale", "resale", "79.99", "2026-05-03T10:00:00Z"}
	diffNs     = []string{"0", "1", "1.5", "-2", "100", "79.99"}
	diffScores = []string{"", "", "1", "1.0", "0.5", "0.50", "-2", "10"}
	diffCosts  = []string{"", "1", "2.50", "4", "10.00"}
)

// diffRounds is how many document sets the test checks, each with
// diffIntents intents; AQLSTORE_CLUSTER_ROUNDS raises it (make test-long).
func diffRounds() int {
	if n, err := strconv.Atoi(os.Getenv("AQLSTORE_CLUSTER_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 2
}

const diffIntents = 40

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// genRecord draws a small object; i makes it unique, so that a delete by
// content id names one document (two documents of one owner may share
// content: a candidate's record and a generic JSON document).
func genRecord(r *rand.Rand, i int) string {
	members := []string{fmt.Sprintf(`"i":%d`, i)}
	if r.IntN(4) > 0 {
		members = append(members, fmt.Sprintf(`"a":%q`, pick(r, diffAs)))
	}
	if r.IntN(3) > 0 {
		members = append(members, fmt.Sprintf(`"n":%s`, pick(r, diffNs)))
	}
	if r.IntN(2) == 0 {
		members = append(members, fmt.Sprintf(`"tags":[%q,%q]`, pick(r, diffAs), pick(r, diffAs)))
	}
	return "{" + strings.Join(members, ",") + "}"
}

// genDoc draws a document: a candidate shape with signals, a knowledge
// node, or generic JSON (with signals given beside it, or none).
func genDoc(r *rand.Rand, i int) store.Document {
	owner := pick(r, diffOwners)
	rec := genRecord(r, i)
	switch r.IntN(3) {
	case 0:
		var extra string
		if s := pick(r, diffScores); s != "" {
			extra += `,"score":` + s
		}
		if c := pick(r, diffCosts); c != "" {
			extra += fmt.Sprintf(`,"cost":{"amount":%q,"currency":%q}`, c, pick(r, []string{"EUR", "EUR", "USD"}))
		}
		// An id names one document of the visible set: the merge orders
		// two that share one by stream time only when they are in
		// different shards (doc.go).
		return store.Document{Owner: owner, Body: fmt.Appendf(nil, `{"id":"c%d","record":%s%s}`, i, rec, extra)}
	case 1:
		return store.Document{Owner: owner, Kind: canon.KindKnowledge,
			Body: fmt.Appendf(nil, `{"node_id":"k%d","body":%s}`, i, rec)}
	}
	d := store.Document{Owner: owner, Kind: canon.KindJSON, Body: []byte(rec)}
	if s := pick(r, diffScores); s != "" {
		d.Signals = &canon.Signals{Score: canon.Number(s)}
	}
	return d
}

func genLeaf(r *rand.Rand) string {
	path := pick(r, []string{"/a", "/n", "/tags/*", "/body/a", "/**", "/n"})
	switch op := pick(r, []string{"eq", "ne", "lt", "gte", "in", "contains", "matches", "exists"}); op {
	case "exists":
		return fmt.Sprintf(`{"path":%q,"operator":"exists","value":%v}`, path, r.IntN(2) == 0)
	case "in":
		return fmt.Sprintf(`{"path":%q,"operator":"in","value":[%q,%s]}`, path, pick(r, diffAs), pick(r, diffNs))
	case "matches":
		return fmt.Sprintf(`{"path":%q,"operator":"matches","value":%q}`, path, pick(r, []string{"^s", "ale$", "x|y", "."}))
	case "lt", "gte":
		return fmt.Sprintf(`{"path":%q,"operator":%q,"value":%s}`, path, op, pick(r, []string{"1", `"79.99"`, "0", `"2026-05-03T10:00:00Z"`}))
	default:
		v := strconv.Quote(pick(r, diffAs))
		if r.IntN(2) == 0 {
			v = pick(r, diffNs)
		}
		return fmt.Sprintf(`{"path":%q,"operator":%q,"value":%s}`, path, op, v)
	}
}

func genConstraints(r *rand.Rand, depth int) string {
	if depth >= 2 || r.IntN(2) == 0 {
		return genLeaf(r)
	}
	switch r.IntN(3) {
	case 0:
		return `{"not":` + genConstraints(r, depth+1) + `}`
	case 1:
		return `{"any_of":[` + genConstraints(r, depth+1) + `,` + genConstraints(r, depth+1) + `]}`
	}
	return `{"all_of":[` + genConstraints(r, depth+1) + `,` + genConstraints(r, depth+1) + `]}`
}

func genIntent(r *rand.Rand) string {
	budget := ""
	if r.IntN(2) == 0 {
		budget = fmt.Sprintf(`"budget":{"amount":%q,"currency":"EUR","allocation":"single_winner"},`, pick(r, []string{"0", "1", "3", "5.50", "20"}))
	}
	include := pick(r, []string{`["/"]`, `["/a"]`, `["/a","/n"]`, `["/tags/*"]`})
	return `{"intent_id":"urn:oap:intent:cluster-diff","issuer_did":"did:web:diff.example","category":"knowledge",` +
		`"constraints":` + genConstraints(r, 0) + `,"projection":{"include":` + include + `},` + budget +
		`"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},` +
		`"resolution_policy":"` + pick(r, []string{"ranked_set", "full_set", "full_set", "single_best"}) + `",` +
		`"signature":{"alg":"EdDSA","value":"x"}}`
}

var diffAt = time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)

func TestClusterEqualsOneStore(t *testing.T) {
	ctx := context.Background()
	// Three NATS servers in one JetStream cluster, streams with 3 replicas.
	_, url := startNATSCluster(t, 3)
	c := &testCluster{t: t, url: url, shards: 3, dir: t.TempDir(), nodes: map[string]*Node{}, replicas: 3}
	nodes := []*Node{c.start("n1", 0, 1), c.start("n2", 1, 2), c.start("n3", 2, 0)}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	stats := map[string]int{}
	s, ix, err := index.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Each round writes more documents (and deletes some), then queries.
	for round := range diffRounds() {
		writeBoth(t, r, nodes, s, round*60, stats)
		c.waitAll(ctx)
		for range diffIntents {
			intent := []byte(genIntent(r))
			compareQuery(t, r, pick(r, nodes), s, ix, intent, pick(r, append(diffOwners, bob)), stats)
		}
	}
	t.Logf("compared %v", stats)
	if stats["candidates"] == 0 || stats["rejected"] == 0 || stats["pages>1"] == 0 || stats["over_budget"] == 0 {
		t.Fatalf("the random cases were vacuous: %v", stats)
	}
}

// writeBoth puts random documents, deleting some as it goes, through
// random nodes and into s; both must accept or refuse alike.
func writeBoth(t *testing.T, r *rand.Rand, nodes []*Node, s *store.Store, first int, stats map[string]int) {
	t.Helper()
	ctx := context.Background()
	type put struct {
		id    canon.ContentID
		owner string
	}
	var live []put
	for i := first; i < first+60; i++ {
		if len(live) > 0 && r.IntN(6) == 0 {
			k := r.IntN(len(live))
			p := live[k]
			live = append(live[:k], live[k+1:]...)
			octx := store.WithPrincipal(ctx, p.owner)
			errL := s.Delete(octx, store.Ref{ID: p.id})
			_, errC := pick(r, nodes).Delete(octx, p.id)
			if (errL == nil) != (errC == nil) {
				t.Fatalf("delete %s: store %v, cluster %v", p.id, errL, errC)
			}
			stats["deletes"]++
			continue
		}
		if len(live) > 0 && r.IntN(6) == 0 {
			p := live[r.IntN(len(live))]
			octx := store.WithPrincipal(ctx, p.owner)
			var errL, errC error
			if r.IntN(3) > 0 {
				errL = s.Grant(octx, store.Ref{ID: p.id}, bob)
				_, errC = pick(r, nodes).Grant(octx, p.id, bob)
				stats["grants"]++
			} else {
				errL = s.Revoke(octx, store.Ref{ID: p.id}, bob)
				_, errC = pick(r, nodes).Revoke(octx, p.id, bob)
				stats["revokes"]++
			}
			if (errL == nil) != (errC == nil) {
				t.Fatalf("grant of %s: store %v, cluster %v", p.id, errL, errC)
			}
			continue
		}
		d := genDoc(r, i)
		ref, errL := s.Put(ctx, d)
		rc, errC := pick(r, nodes).Put(ctx, d)
		if (errL == nil) != (errC == nil) {
			t.Fatalf("put %s: store %v, cluster %v", d.Body, errL, errC)
		}
		if errL != nil {
			stats["refused puts"]++
			continue
		}
		if ref.ID != rc.ID {
			t.Fatalf("put %s: store id %s, cluster %s", d.Body, ref.ID, rc.ID)
		}
		if ref.Created {
			live = append(live, put{ref.ID, d.Owner})
		}
		stats["puts"]++
	}
}

// compareQuery resolves intent as reader on the store and on the
// cluster, page by page, and fails on any difference.
func compareQuery(t *testing.T, r *rand.Rand, n *Node, s *store.Store, ix *index.Index, intent []byte, reader string, stats map[string]int) {
	t.Helper()
	ctx := store.WithPrincipal(context.Background(), reader)
	in, err := aql.Parse(intent, nil)
	if err != nil {
		t.Fatalf("intent %s: %v", intent, err)
	}
	pageSize := 1 + r.IntN(4)
	maxRejected := pick(r, []int{-1, 1, 2, 1 << 20})
	var localCursor, clusterCursor string
	for page := 0; ; page++ {
		want, errL := query.Resolve(ctx, s, in, &query.Options{Signer: testKey, At: diffAt, PageSize: pageSize,
			Cursor: localCursor, MaxRejected: maxRejected, Index: ix})
		got, errC := n.Query(ctx, intent, &QueryOptions{At: diffAt, PageSize: pageSize, Cursor: clusterCursor, MaxRejected: maxRejected})
		if errL != nil || errC != nil {
			if (errL == nil) != (errC == nil) {
				t.Fatalf("intent %s as %s, page %d: store %v, cluster %v", intent, reader, page, errL, errC)
			}
			stats["refused"]++
			return
		}
		if d := cmp.Diff(comparable(want.Document()), comparable(got.Document)); d != "" {
			t.Fatalf("intent %s as %s, page %d (size %d, max_rejected %d): store (-) and cluster (+) differ:\n%s",
				intent, reader, page, pageSize, maxRejected, d)
		}
		if want.RejectedTotal != got.RejectedTotal {
			t.Fatalf("intent %s: rejected totals %d and %d", intent, want.RejectedTotal, got.RejectedTotal)
		}
		count(stats, want.Document(), page)
		localCursor, clusterCursor = want.NextCursor, stringOf(got.Document["next_cursor"])
		if localCursor == "" {
			return
		}
	}
}

func stringOf(v any) string { s, _ := v.(string); return s }

func count(stats map[string]int, doc map[string]any, page int) {
	cs, _ := doc["candidates"].([]any)
	rs, _ := doc["rejected"].([]any)
	stats["candidates"] += len(cs)
	stats["rejected"] += len(rs)
	if page > 0 {
		stats["pages>1"]++
	}
	for _, c := range cs {
		if c.(map[string]any)["over_budget"] == true {
			stats["over_budget"]++
		}
	}
}

// comparable drops what differs between any two responses (ids, times,
// the resolver's key and signature) and keeps whether a next page exists.
func comparable(doc map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range doc {
		switch k {
		case "response_id", "evaluated_at", "signature", "resolver_did":
		case "next_cursor":
			out[k] = v != ""
		case "candidates", "rejected":
			var list []any
			for _, x := range v.([]any) {
				m := map[string]any{}
				for k2, v2 := range x.(map[string]any) {
					m[k2] = v2
				}
				rec := map[string]any{}
				for k2, v2 := range m["decision_record"].(map[string]any) {
					if k2 != "decision_id" && k2 != "evaluated_at" {
						rec[k2] = v2
					}
				}
				m["decision_record"] = rec
				list = append(list, m)
			}
			out[k] = list
		default:
			out[k] = v
		}
	}
	return out
}
