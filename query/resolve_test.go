package query

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/eval"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var testKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))

func testSigner() *sign.Signer { return sign.NewSigner(testKey) }

func openStore(t testing.TB) *store.Store {
	t.Helper()
	s, err := store.Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func putAll(t testing.TB, s *store.Store, ctx context.Context, docs ...string) {
	t.Helper()
	for _, d := range docs {
		if _, err := s.Put(ctx, store.Document{Body: []byte(d)}); err != nil {
			t.Fatalf("put %s: %v", d, err)
		}
	}
}

func putFile(t testing.TB, s *store.Store, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := canon.Decode(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range v.([]any) {
		if _, err := s.Put(context.Background(), store.Document{Body: canon.AppendValue(nil, e)}); err != nil {
			t.Fatal(err)
		}
	}
}

func parseIntent(t testing.TB, b []byte) *aql.Intent {
	t.Helper()
	in, err := aql.Parse(b, nil)
	if err != nil {
		t.Fatalf("parse intent: %v", err)
	}
	return in
}

func resolve(t testing.TB, s *store.Store, intent string, o *Options) *Response {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	if o.Signer == nil {
		o.Signer = testSigner()
	}
	if o.At.IsZero() {
		o.At = at
	}
	resp, err := Resolve(context.Background(), s, parseIntent(t, []byte(intent)), o)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	return resp
}

var at = time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC)

func sharedOAP(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "vectors", "oap")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("public vectors not present (%s)", dir)
	}
	return dir
}

// schemaValidator compiles the OAP response schema, or skips.
func schemaValidator(t testing.TB) *jsonschema.Schema {
	t.Helper()
	dir := filepath.Join(sharedOAP(t), "schemas", "v1.0")
	c := jsonschema.NewCompiler()
	for _, f := range []string{"oap-aql-decision.schema.json", "oap-intent-response.schema.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource("https://openagentprotocol.eu/schemas/v1.0/"+f, doc); err != nil {
			t.Fatal(err)
		}
	}
	sch, err := c.Compile("https://openagentprotocol.eu/schemas/v1.0/oap-intent-response.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func checkSchema(t testing.TB, sch *jsonschema.Schema, resp *Response) {
	t.Helper()
	b, _ := resp.MarshalJSON()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("response does not validate: %v\n%s", err, b)
	}
}

func TestDiscoveryExample(t *testing.T) {
	dir := sharedOAP(t)
	s := openStore(t)
	putFile(t, s, filepath.Join(dir, "examples", "aql", "candidates.json"))
	intent, err := os.ReadFile(filepath.Join(dir, "examples", "aql", "discovery-intent.json"))
	if err != nil {
		t.Fatal(err)
	}
	resp := resolve(t, s, string(intent), nil)
	checkSchema(t, schemaValidator(t), resp)
	if len(resp.Candidates) != 2 || resp.Candidates[0].CandidateID != "shop-a:sku-001" || resp.Candidates[0].Rank != 1 ||
		resp.Candidates[1].CandidateID != "shop-b:sku-077" || resp.Candidates[1].Rank != 2 {
		t.Fatalf("candidates %+v", resp.Candidates)
	}
	wantFail := map[string]string{"shop-c:sku-200": "/price/amount", "shop-d:sku-101": "/category"}
	if len(resp.Rejected) != 2 {
		t.Fatalf("rejected %+v", resp.Rejected)
	}
	for _, r := range resp.Rejected {
		var failed []string
		for _, e := range r.Record.Evaluations {
			if !e.Passed {
				failed = append(failed, e.Path)
			}
		}
		if len(r.Record.Evaluations) != 4 || len(failed) != 1 || failed[0] != wantFail[r.CandidateID] {
			t.Errorf("%s: failed %v, want %s (records %+v)", r.CandidateID, failed, wantFail[r.CandidateID], r.Record.Evaluations)
		}
	}
	p, err := resp.Candidates[0].PayloadValue()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p["internal_metadata"]; ok || p["manifest_id"] != "manifest:shop-a:sku-001" || len(p) != 4 {
		t.Errorf("payload %v", p)
	}
	if err := sign.Verify(resp.Document(), testSigner().PublicKey()); err != nil {
		t.Fatalf("signature: %v", err)
	}
	// The same intent now: refused as outside its validity window.
	_, err = Resolve(context.Background(), s, parseIntent(t, intent), &Options{Signer: testSigner(),
		At: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)})
	if !errors.Is(err, aql.ErrOutsideValidity) || !strings.Contains(err.Error(), "2026-08-03") {
		t.Fatalf("current date: %v", err)
	}
}

// Every example intent, run against candidates.json, yields a response the
// schema accepts, whose bytes are the map oracle's (checkOracle).
func TestExampleIntentsValidate(t *testing.T) {
	dir := sharedOAP(t)
	sch := schemaValidator(t)
	s := openStore(t)
	putFile(t, s, filepath.Join(dir, "examples", "aql", "candidates.json"))
	files, _ := filepath.Glob(filepath.Join(dir, "examples", "aql", "*-intent.json"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		in := parseIntent(t, b)
		resp, err := Resolve(context.Background(), s, in, &Options{Signer: testSigner(), At: in.Validity.From})
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		checkSchema(t, sch, resp)
		checkOracle(t, resp)
		t.Logf("%s: %d candidates, %d rejected", filepath.Base(f), len(resp.Candidates), resp.RejectedTotal)
	}
	if len(files) < 6 {
		t.Fatalf("only %d example intents", len(files))
	}
}

const shoes = `{"intent_id":"urn:oap:intent:t","issuer_did":"did:web:agent.example","category":"discovery",
 "constraints":{"all_of":[{"path":"/category","operator":"eq","value":"shoes"}]},
 "projection":{"include":["/name","/price"]},
 "validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},
 "resolution_policy":"%s"%s,"signature":{"alg":"EdDSA","value":"x"}}`

func shoeIntent(policy, extra string) string {
	return strings.Replace(strings.Replace(shoes, "%s", policy, 1), "%s", extra, 1)
}

func shoeCandidate(id, score, cost string, extra string) string {
	return `{"id":"` + id + `","score":` + score + `,"cost":` + cost + `,"quality":{"performance_score":0.8,"conformance_level":"L2","latency_p99_ms":120}` +
		`,"record":{"name":"` + id + `","category":"shoes","price":{"amount":"10.00","currency":"EUR"}` + extra + `}}`
}

func TestRankingBudgetAndPolicies(t *testing.T) {
	s := openStore(t)
	putAll(t, s, context.Background(),
		shoeCandidate("b", "0.9", `{"amount":"60.00","currency":"EUR"}`, ""),
		shoeCandidate("a", "0.9", `{"amount":"30.00","currency":"EUR"}`, ""),
		shoeCandidate("c", "0.95", `{"amount":"50.00","currency":"USD"}`, ""),
		shoeCandidate("d", "0.5", `"15.00"`, ""),
		`{"id":"e","record":{"name":"e","category":"shoes","price":{}}}`,
	)
	resp := resolve(t, s, shoeIntent("ranked_set", `,"budget":{"amount":"80.00","currency":"EUR","allocation":"single_winner"}`), nil)
	var got []string
	for _, c := range resp.Candidates {
		got = append(got, c.CandidateID+":"+c.Record.Outcome)
	}
	// c first (0.95) but in USD; a before b on the id tie; b's 60 > 50 left;
	// d's 15 fits what a left; e has no score and ranks last.
	want := "c:over_budget a:accept b:over_budget d:accept e:accept"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	if !resp.Candidates[0].OverBudget || !strings.Contains(resp.Candidates[0].Record.Explanation, "currency USD") {
		t.Errorf("currency mismatch not explained: %+v", resp.Candidates[0])
	}
	one := resolve(t, s, shoeIntent("single_best", ""), nil)
	if len(one.Candidates) != 1 || one.Candidates[0].CandidateID != "c" {
		t.Errorf("single_best: %+v", one.Candidates)
	}
	floor := resolve(t, s, shoeIntent("ranked_set", `,"quality_floor":{"latency_p99_ms":100}`), nil)
	if len(floor.Candidates) != 0 || floor.RejectedTotal != 5 || floor.Rejected[0].Record.Outcome != "below_quality_floor" {
		t.Errorf("latency ceiling: %d candidates, %+v", len(floor.Candidates), floor.Rejected)
	}
	lvl := resolve(t, s, shoeIntent("ranked_set", `,"quality_floor":{"conformance_level":"L2","performance_score":0.8}`), nil)
	if len(lvl.Candidates) != 4 || lvl.RejectedTotal != 1 {
		t.Errorf("floor L2/0.8: %d candidates, %d rejected", len(lvl.Candidates), lvl.RejectedTotal)
	}
}

func TestProjectionFailureRejects(t *testing.T) {
	s := openStore(t)
	putAll(t, s, context.Background(), `{"id":"x","record":{"category":"shoes","name":"x"}}`)
	resp := resolve(t, s, shoeIntent("ranked_set", ""), nil)
	if len(resp.Candidates) != 0 || len(resp.Rejected) != 1 || !strings.Contains(resp.Rejected[0].Record.Explanation, "/price") {
		t.Fatalf("missing include not rejected: %+v", resp)
	}
}

func TestFullSetPagination(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	for i := 0; i < 25; i++ {
		putAll(t, s, ctx, shoeCandidate("c"+string(rune('a'+i)), "0.5", `"1.00"`, ""))
	}
	intent := shoeIntent("full_set", "")
	var ids []string
	cursor := ""
	for page := 0; ; page++ {
		resp := resolve(t, s, intent, &Options{PageSize: 10, Cursor: cursor})
		for _, c := range resp.Candidates {
			ids = append(ids, c.CandidateID)
			if c.Rank != len(ids) {
				t.Fatalf("rank %d at position %d", c.Rank, len(ids))
			}
		}
		if page == 0 {
			// A document put between pages lands in its rank place: the
			// pages already served are not shifted.
			putAll(t, s, ctx, shoeCandidate("a-late", "0.5", `"1.00"`, ""))
		}
		if cursor = resp.NextCursor; cursor == "" {
			break
		}
	}
	if len(ids) != 25 || ids[0] != "ca" || ids[24] != "cy" {
		t.Fatalf("pages gave %d ids: %v", len(ids), ids)
	}
	first := resolve(t, s, intent, &Options{PageSize: 10})
	tampered := []byte(first.NextCursor)
	tampered[len(tampered)/2] ^= 1
	for _, bad := range []string{string(tampered), "!!", first.NextCursor[:10]} {
		_, err := Resolve(ctx, s, parseIntent(t, []byte(intent)), &Options{Signer: testSigner(), At: at, Cursor: bad})
		if !errors.Is(err, ErrBadCursor) {
			t.Errorf("tampered cursor accepted: %v", err)
		}
	}
	other := strings.Replace(intent, "urn:oap:intent:t", "urn:oap:intent:other", 1)
	if _, err := Resolve(ctx, s, parseIntent(t, []byte(other)), &Options{Signer: testSigner(), At: at, Cursor: first.NextCursor}); !errors.Is(err, ErrBadCursor) {
		t.Errorf("cursor of another intent accepted: %v", err)
	}
}

func TestRejectedCap(t *testing.T) {
	s := openStore(t)
	for i := 0; i < 7; i++ {
		putAll(t, s, context.Background(), `{"offer_id":"o`+string(rune('0'+i))+`","category":"boots"}`)
	}
	intent := strings.Replace(shoeIntent("ranked_set", ""), `"discovery"`, `"commercial"`, 1)
	resp := resolve(t, s, intent, &Options{MaxRejected: 3})
	if len(resp.Rejected) != 3 || resp.RejectedTotal != 7 || !strings.Contains(resp.Rejected[2].Record.Explanation, "7 rejected candidates in all, 3 listed") {
		t.Fatalf("cap: %d listed, %d total, %q", len(resp.Rejected), resp.RejectedTotal, resp.Rejected[2].Record.Explanation)
	}
}

// Determinism: the same store and intent give byte-identical responses
// apart from response_id, evaluated_at, decision ids and signature.
func TestDeterministic(t *testing.T) {
	s := openStore(t)
	putAll(t, s, context.Background(), shoeCandidate("a", "0.9", `"1.00"`, ""), shoeCandidate("b", "0.7", `"2.00"`, ""),
		`{"id":"z","record":{"category":"hats"}}`)
	intent := shoeIntent("ranked_set", "")
	strip := regexp.MustCompile(`"(response_id|decision_id|value)":"[^"]*"`)
	r1, _ := resolve(t, s, intent, nil).MarshalJSON()
	r2, _ := resolve(t, s, intent, nil).MarshalJSON()
	if bytes.Equal(r1, r2) {
		t.Fatal("response ids did not differ: are they random?")
	}
	a, b := strip.ReplaceAll(r1, nil), strip.ReplaceAll(r2, nil)
	if !bytes.Equal(a, b) {
		t.Fatalf("responses differ:\n%s\n%s", a, b)
	}
}

// An issuer whose key resolves and verifies reads its own documents; one
// whose key does not resolve reads public ones; a bad signature under a
// resolvable key is refused.
func TestIssuerVisibility(t *testing.T) {
	s := openStore(t)
	issuerKey := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
	issuer := sign.NewSigner(issuerKey)
	own := store.WithPrincipal(context.Background(), issuer.DID())
	putAll(t, s, own, shoeCandidate("private", "0.9", `"1.00"`, ""))
	putAll(t, s, context.Background(), shoeCandidate("public", "0.5", `"1.00"`, ""))

	unsigned := shoeIntent("ranked_set", "")
	if r := resolve(t, s, unsigned, nil); len(r.Candidates) != 1 || r.Candidates[0].CandidateID != "public" {
		t.Fatalf("unresolved issuer saw: %+v", r.Candidates)
	}
	doc, _ := canon.Decode([]byte(strings.Replace(unsigned, "did:web:agent.example", issuer.DID(), 1)), nil)
	signed, err := issuer.Sign(doc.(map[string]any))
	if err != nil {
		t.Fatal(err)
	}
	r := resolve(t, s, string(canon.AppendValue(nil, signed)), nil)
	if len(r.Candidates) != 2 || r.Candidates[0].CandidateID != "private" {
		t.Fatalf("verified issuer saw: %+v", r.Candidates)
	}
	signed["category"] = "commercial" // changed after signing
	_, err = Resolve(context.Background(), s, parseIntent(t, canon.AppendValue(nil, signed)), &Options{Signer: testSigner(), At: at})
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("bad signature: %v", err)
	}
}

// TestNotNamesWhatFailed: a candidate a not rejects says what held under
// it: those leaves carry eval.ReasonHeldUnderNot, the explanation names
// that leaf's path and operator (not the leaf before it that failed under
// the not), and the response still validates against the OAP schemas
// (when the public vectors are present).
func TestNotNamesWhatFailed(t *testing.T) {
	s := openStore(t)
	putAll(t, s, context.Background(),
		`{"id":"boot","record":{"category":"boots","risk_class":"high","price":{"amount":"50.00"}}}`,
		`{"id":"shoe","record":{"category":"shoes","risk_class":"low","price":{"amount":"50.00"}}}`)
	intent := `{"intent_id":"urn:oap:intent:not","issuer_did":"did:web:agent.example","category":"discovery",
		"constraints":{"all_of":[{"path":"/price/amount","operator":"lte","value":"100.00"},
			{"not":[{"path":"/risk_class","operator":"eq","value":"critical"},{"path":"/category","operator":"eq","value":"boots"}]}]},
		"projection":{"include":["/category"]},
		"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},
		"resolution_policy":"ranked_set","signature":{"alg":"EdDSA","value":"x"}}`
	resp := resolve(t, s, intent, nil)
	if len(resp.Candidates) != 1 || len(resp.Rejected) != 1 || resp.Rejected[0].CandidateID != "boot" {
		t.Fatalf("%d candidates, rejected %+v; want shoe accepted, boot rejected", len(resp.Candidates), resp.Rejected)
	}
	rec := resp.Rejected[0].Record
	var reasons []string
	for _, e := range rec.Evaluations {
		reasons = append(reasons, fmt.Sprintf("%s %v %q", e.Path, e.Passed, e.Reason))
	}
	want := []string{`/price/amount true ""`, `/risk_class false "no value satisfies eq \"critical\""`,
		`/category true "` + eval.ReasonHeldUnderNot + `"`}
	if !slices.Equal(reasons, want) {
		t.Errorf("evaluations %q, want %q", reasons, want)
	}
	if want := "constraint /category eq held under not"; !strings.HasPrefix(rec.Explanation, want) {
		t.Errorf("explanation %q, want it to start %q", rec.Explanation, want)
	}
	b, _ := resp.MarshalJSON()
	if !strings.Contains(string(b), `"passed":true,"path":"/category","reason":"held under not`) {
		t.Errorf("the response does not carry the reason of the leaf that held:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "vectors", "oap")); err == nil {
		checkSchema(t, schemaValidator(t), resp)
	}
}

// With no Options.Principal, Resolve reads as the context's principal: a
// tenant finds its own documents, and another tenant does not.
func TestResolveReadsAsContextPrincipal(t *testing.T) {
	s := openStore(t)
	tenant := store.WithPrincipal(context.Background(), "did:web:tenant.example")
	putAll(t, s, tenant, shoeCandidate("own", "0.9", `"1.00"`, ""))
	putAll(t, s, context.Background(), shoeCandidate("public", "0.5", `"1.00"`, ""))
	in := parseIntent(t, []byte(shoeIntent("ranked_set", "")))
	ids := func(ctx context.Context) []string {
		resp, err := Resolve(ctx, s, in, &Options{Signer: testSigner(), At: at})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range resp.Candidates {
			out = append(out, c.CandidateID)
		}
		return out
	}
	if got := strings.Join(ids(tenant), " "); got != "own public" {
		t.Errorf("the tenant saw %q, want its own document and the public one", got)
	}
	other := store.WithPrincipal(context.Background(), "did:web:other.example")
	if got := strings.Join(ids(other), " "); got != "public" {
		t.Errorf("another tenant saw %q, want the public document only", got)
	}
	if got := strings.Join(ids(context.Background()), " "); got != "public" {
		t.Errorf("a context without a principal saw %q, want the public document only", got)
	}
}

// TestResolveChecksOptions: a response is signed only with what its
// schema allows: no signer, or a resolver_role outside the schema's
// enum, is refused before anything is read.
func TestResolveChecksOptions(t *testing.T) {
	s := openStore(t)
	b, _ := leafIntent(`{"path":"/a","operator":"exists","value":true}`)
	in, err := aql.Parse(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := Resolve(ctx, s, in, &Options{At: at}); !errors.Is(err, ErrNoSigner) {
		t.Errorf("no signer: %v, want ErrNoSigner", err)
	}
	if _, err := Resolve(ctx, s, in, &Options{Signer: testSigner(), At: at, Role: "oracle"}); !errors.Is(err, ErrInvalidOptions) ||
		!strings.Contains(err.Error(), `"oracle"`) {
		t.Errorf("role oracle: %v, want ErrInvalidOptions naming it", err)
	}
	resp, err := Resolve(ctx, s, in, &Options{Signer: testSigner(), At: at, Role: "publisher"})
	if err != nil || resp.ResolverRole != "publisher" {
		t.Fatalf("role publisher: %+v, %v", resp, err)
	}
}
