package store_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// These tests run the message kinds through index, query and concurrent
// writers; they live in an external test package because index and query
// import store.

func openIndexed(t testing.TB) (*store.Store, *index.Index) {
	t.Helper()
	s, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ix
}

func envelope(t testing.TB, id, agent string) []byte {
	return store.AIDPFixture(t, "ie-19.1.json", map[string]any{"envelope_id": id, "actor_ref": map[string]any{"agent_id": agent}})
}

func observation(t testing.TB, env, exec, status, boundary string) []byte {
	return store.AIDPFixture(t, "ob-19.2.json", map[string]any{"envelope_id": env, "execution_id": exec, "status": status,
		"attestation": map[string]any{"boundary_id": boundary}})
}

func pairlMsg(mid, root, parent, cost string) []byte {
	h := "@v 1\n@mid ref:msg:" + mid + "\n@ts 2026-01-31T10:00:00Z\n"
	if root != "" {
		h += "@root ref:msg:" + root + "\n"
	}
	if parent != "" {
		h += "@parent ref:msg:" + parent + "\n"
	}
	body := "cmp{t=research} @rid=a1\n"
	if cost != "" {
		body += "#cost val=" + cost + " cur=USD @rid=c1\n"
	}
	return []byte(h + "\n" + body)
}

func mustPut(t testing.TB, s *store.Store, body []byte, unbound store.UnboundPolicy) store.Ref {
	t.Helper()
	ref, err := s.Put(context.Background(), store.Document{Body: body, Unbound: unbound})
	if err != nil {
		t.Fatalf("put %.60s: %v", body, err)
	}
	return ref
}

var signer = sign.NewSigner(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32)))

// resolveBoth runs constraints over kinds with the planner and by full
// scan, checks they agree, and returns the accepted candidate ids.
func resolveBoth(t *testing.T, s *store.Store, ix *index.Index, kinds []canon.Kind, constraints string) []string {
	t.Helper()
	in, err := aql.Parse([]byte(`{"intent_id":"urn:oap:intent:msg","issuer_did":"did:web:msg.example","category":"knowledge",`+
		`"constraints":`+constraints+`,"projection":{"include":["/"]},`+
		`"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},"resolution_policy":"ranked_set","signature":{"alg":"EdDSA","value":"x"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)
	var got [2][]string
	for i, o := range []*query.Options{{Signer: signer, At: at, Kinds: kinds}, {Signer: signer, At: at, Kinds: kinds, Index: ix}} {
		resp, err := query.Resolve(context.Background(), s, in, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range resp.Candidates {
			got[i] = append(got[i], c.CandidateID)
		}
		slices.Sort(got[i])
	}
	if !slices.Equal(got[0], got[1]) {
		t.Fatalf("%s: full scan %q, planner %q", constraints, got[0], got[1])
	}
	return got[0]
}

func TestAQLOverMessageViews(t *testing.T) {
	s, ix := openIndexed(t)
	for i, agent := range []string{"agent:alpha", "agent:beta", "agent:alpha"} {
		env := fmt.Sprintf("env-%d", i)
		mustPut(t, s, envelope(t, env, agent), store.RejectUnbound)
		mustPut(t, s, observation(t, env, "x-ok", "executed", "boundary:gw-1"), store.RejectUnbound)
		mustPut(t, s, observation(t, env, "x-bad", "failed", []string{"boundary:gw-1", "boundary:gw-2", "boundary:gw-1"}[i]), store.RejectUnbound)
	}
	mustPut(t, s, observation(t, "env-q", "x-q", "failed", "boundary:gw-1"), store.QuarantineUnbound)
	got := resolveBoth(t, s, ix, []canon.Kind{canon.KindAIDPObservation},
		`[{"path":"/payload/status","operator":"eq","value":"failed"},`+
			`{"path":"/payload/attestation/boundary_id","operator":"eq","value":"boundary:gw-1"}]`)
	if len(got) != 3 || !strings.Contains(strings.Join(got, " "), "env-q") {
		t.Fatalf("failed observations at gw-1: %q", got)
	}
	got = resolveBoth(t, s, ix, []canon.Kind{canon.KindAIDPEnvelope},
		`[{"path":"/payload/actor_ref/agent_id","operator":"eq","value":"agent:alpha"}]`)
	if strings.Join(got, " ") != "env-0 env-2" {
		t.Fatalf("alpha's envelopes: %q", got)
	}

	mustPut(t, s, pairlMsg("t1", "", "", ""), store.RejectUnbound)
	mustPut(t, s, pairlMsg("t2", "t1", "t1", "0.10"), store.RejectUnbound)
	mustPut(t, s, pairlMsg("t3", "t1", "t2", "0.35"), store.RejectUnbound)
	mustPut(t, s, pairlMsg("u1", "u0", "", "0.90"), store.RejectUnbound)
	got = resolveBoth(t, s, ix, []canon.Kind{canon.KindPAIRL},
		`[{"path":"/root","operator":"eq","value":"ref:msg:t1"},{"path":"/records/*/val","operator":"gt","value":"0.20"}]`)
	if strings.Join(got, " ") != "ref:msg:t3" {
		t.Fatalf("costly messages of thread t1: %q", got)
	}
	got = resolveBoth(t, s, ix, []canon.Kind{canon.KindPAIRL},
		`[{"path":"/records/*/type","operator":"eq","value":"cost"}]`)
	if len(got) != 3 {
		t.Fatalf("messages with a cost: %q", got)
	}

	mustPut(t, s, store.ExecIntentFixture(t, "int_a", "idem_aaaa", "nonce_aaaa", 100), store.RejectUnbound)
	mustPut(t, s, store.ExecIntentFixture(t, "int_b", "idem_bbbb", "nonce_bbbb", 900), store.RejectUnbound)
	got = resolveBoth(t, s, ix, []canon.Kind{canon.KindExecutionIntent},
		`[{"path":"/spendBounds/maxAmountCents","operator":"gt","value":500}]`)
	if strings.Join(got, " ") != "int_b" {
		t.Fatalf("large intents: %q", got)
	}
	checkStore(t, s)
}

func checkStore(t testing.TB, s *store.Store) {
	t.Helper()
	rep, err := s.Verify(context.Background())
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %v %v", err, rep.Problems)
	}
	crep, err := index.Check(context.Background(), s)
	if err != nil || crep.Count != 0 {
		t.Fatalf("index check: %v %v", err, crep.Problems)
	}
}

// TestConcurrentMessagePuts races writers over the same and conflicting
// envelopes, observations, PAIRL mids and ExecutionIntents: per key,
// exactly one content wins, identical puts are idempotent, and the store
// and its indexes agree afterwards.
func TestConcurrentMessagePuts(t *testing.T) {
	s, _ := openIndexed(t)
	const writers = 8
	const keys = 4
	type outcome struct {
		key string
		ref store.Ref
		err error
	}
	results := make(chan outcome, writers*keys*8)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			variant := w % 2 // writers 0,2,4… put one content, 1,3,5… another
			for k := range keys {
				env := fmt.Sprintf("env-race-%d", k)
				agent := fmt.Sprintf("agent:%d", variant)
				docs := []struct {
					key     string
					body    []byte
					unbound store.UnboundPolicy
				}{
					{"ob-early " + env, observation(t, env, "x-early", []string{"executed", "failed"}[variant], "b"), store.QuarantineUnbound},
					{"ie " + env, envelope(t, env, agent), store.RejectUnbound},
					{"ob " + env, observation(t, env, "x-1", []string{"executed", "failed"}[variant], "b"), store.RejectUnbound},
					{"pairl " + env, pairlMsg(fmt.Sprintf("race%d", k), "", "", []string{"0.10", "0.20"}[variant]), store.RejectUnbound},
					{"exec " + env, store.ExecIntentFixture(t, fmt.Sprintf("int_race_%d", k), fmt.Sprintf("idem_race_%d_%d", k, variant),
						fmt.Sprintf("nonce_race_%d", k), 100+variant), store.RejectUnbound},
				}
				for _, d := range docs {
					ref, err := s.Put(context.Background(), store.Document{Body: d.body, Unbound: d.unbound})
					results <- outcome{d.key, ref, err}
				}
			}
		}()
	}
	wg.Wait()
	close(results)
	winners := map[string]map[canon.ContentID]int{}
	for r := range results {
		if r.err != nil {
			if !errors.Is(r.err, store.ErrConflict) && !errors.Is(r.err, store.ErrUnbound) {
				t.Errorf("%s: unexpected error %v", r.key, r.err)
			}
			continue
		}
		if winners[r.key] == nil {
			winners[r.key] = map[canon.ContentID]int{}
		}
		winners[r.key][r.ref.ID]++
	}
	for k := range keys {
		env := fmt.Sprintf("env-race-%d", k)
		for _, key := range []string{"ob-early", "ie", "pairl", "exec"} {
			w := winners[key+" "+env]
			if len(w) != 1 {
				t.Errorf("%s %s: %d different contents won", key, env, len(w))
			}
			for _, n := range w {
				if n < 2 {
					t.Errorf("%s %s: the winner was not idempotent (%d puts)", key, env, n)
				}
			}
		}
		if len(winners["ob "+env]) > 1 {
			t.Errorf("ob %s: two contents won", env)
		}
		obs, err := s.ObservationsFor(context.Background(), env, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range obs {
			if o.Quarantined {
				t.Errorf("%s/%s still quarantined after its envelope arrived", env, o.ExecutionID)
			}
		}
	}
	checkStore(t, s)
}
