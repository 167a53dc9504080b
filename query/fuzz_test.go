package query

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// fuzzTenant owns the fixture's private documents; half the fuzzed
// intents are resolved as it, half as the public.
const fuzzTenant = "did:web:fuzz-tenant.example"

// fuzzPageSize is small, so that full_set intents walk several pages
// through their cursors.
const fuzzPageSize = 3

// FuzzResolve fuzzes the intent → plan → evaluate path. A small store of
// several kinds is built once; each input is parsed as an intent. An
// invalid one must be an aql.ErrInvalid *InvalidError whose problems name
// JSON Pointers. A valid one is resolved at the start of its validity
// window through the planner (Options.Index) and by full scan (nil),
// page by page, and the two must agree: the same error, or the same
// response but for its ids, times and signature: the same candidates in
// the same order with the same records and payloads, the same rejections
// listed (RFC 0020 A.3, R3: the first of them in the full scan's order,
// under a cap the input picks) and the same cursors. Each input is tried
// as a whole intent and as the constraint tree of a fixed valid one.
// Seeds: the intents of query/aql/testdata/valid, the constraint trees of
// query/testdata/plan (alone and in intents), and the demo intent.
func FuzzResolve(f *testing.F) {
	for _, seed := range resolveSeeds(f) {
		f.Add(seed)
	}
	s, ix := fuzzFixture(f)
	for _, tree := range planBlocks(f, "plan") {
		f.Add([]byte(strings.TrimSpace(tree)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sum := sha256.Sum256(b)
		principal := ""
		if sum[0]&1 == 1 {
			principal = fuzzTenant
		}
		// The input as a whole intent, then as the constraint tree of a
		// valid one: byte mutations of whole intents mostly break the
		// envelope, and the planner and evaluator need valid trees.
		for _, src := range [][]byte{b, treeIntent(b, sum[1])} {
			in, err := aql.Parse(src, nil)
			if err != nil {
				checkInvalidIntent(t, err)
				continue
			}
			compareResolutions(t, s, ix, in, principal, []int{1, 2, 1 << 20}[int(sum[2])%3])
		}
	})
}

// treeIntent wraps a constraint tree in an intent, its resolution policy
// and projection picked by pick.
func treeIntent(tree []byte, pick byte) []byte {
	policy := []string{"ranked_set", "full_set", "single_best"}[int(pick)%3]
	include := []string{`["/"]`, `["/category","/price"]`, `["/tags/*"]`, `["/**/sku"]`}[int(pick>>2)%4]
	src := `{"intent_id":"urn:oap:intent:tree","issuer_did":"did:web:tree.example","category":"knowledge","constraints":` +
		string(tree) + `,"projection":{"include":` + include + `},"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},` +
		`"resolution_policy":"` + policy + `","signature":{"alg":"EdDSA","value":"x"}}`
	return []byte(src)
}

// checkInvalidIntent: a refused intent is an *InvalidError matching
// aql.ErrInvalid, listing problems with a code, a message and a pointer
// that parses ("" is the root). The pointer is the intent's own, so no
// pointer limit applies to it: a long member name makes a long pointer.
func checkInvalidIntent(t *testing.T, err error) {
	var ie *aql.InvalidError
	if !errors.As(err, &ie) || !errors.Is(err, aql.ErrInvalid) || len(ie.Problems) == 0 {
		t.Fatalf("refusal %T is not an aql.ErrInvalid *InvalidError: %v", err, err)
	}
	for _, p := range ie.Problems {
		if p.Code == "" || p.Message == "" {
			t.Fatalf("problem without a code or message: %+v", p)
		}
		unlimited := canon.PointerLimits{MaxBytes: 1 << 30, MaxSegments: 1 << 30}
		if _, perr := canon.ParsePointerLimits(p.Pointer, unlimited); p.Pointer != "" && perr != nil {
			t.Fatalf("problem pointer %q does not parse: %v", p.Pointer, perr)
		}
	}
}

// compareResolutions resolves in both ways, walking full_set pages.
func compareResolutions(t *testing.T, s *store.Store, ix *index.Index, in *aql.Intent, principal string, maxRejected int) {
	cursor := ""
	for page := 0; page < 50; page++ {
		opts := func(ix *index.Index) *Options {
			return &Options{Signer: testSigner(), At: in.Validity.From, Principal: principal, MaxRejected: maxRejected,
				PageSize: fuzzPageSize, Cursor: cursor, Index: ix}
		}
		full, ferr := Resolve(context.Background(), s, in, opts(nil))
		planned, perr := Resolve(context.Background(), s, in, opts(ix))
		if ferr != nil || perr != nil {
			if ferr == nil || perr == nil || ferr.Error() != perr.Error() {
				t.Fatalf("page %d: full scan error %v, planner error %v", page, ferr, perr)
			}
			return
		}
		if a, b := responseJSON(full), responseJSON(planned); a != b {
			t.Fatalf("page %d: responses differ\nfull:    %s\nplanner: %s", page, a, b)
		}
		if full.RejectedTotal != planned.RejectedTotal {
			t.Fatalf("page %d: the planner rejected %d, the full scan %d", page, planned.RejectedTotal, full.RejectedTotal)
		}
		if cursor = full.NextCursor; cursor == "" {
			return
		}
	}
	t.Fatalf("more than 50 pages of %d from a store of a few dozen documents", fuzzPageSize)
}

// fuzzFixture builds the store FuzzResolve reads: the documents of
// query/testdata/plan and testdata/demo, and generated documents of
// every kind internal/corpus writes, some owned by fuzzTenant.
func fuzzFixture(f *testing.F) (*store.Store, *index.Index) {
	s, ix, err := index.Open(f.TempDir(), &store.Options{NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	var docs []store.Document
	add := func(body []byte, owner string) {
		docs = append(docs, store.Document{Body: body, Owner: owner})
	}
	for _, b := range planBlocks(f, "put") {
		for _, line := range strings.Split(strings.TrimSpace(b), "\n") {
			add([]byte(line), store.Public)
		}
	}
	demo, err := os.ReadFile(filepath.Join("..", "testdata", "demo", "candidates.json"))
	if err != nil {
		f.Fatal(err)
	}
	v, err := canon.Decode(demo, nil)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range v.([]any) {
		add(canon.AppendValue(nil, e), store.Public)
	}
	for _, kind := range corpus.Kinds() {
		for i := range 6 {
			b, err := corpus.Document(kind, 7, i, nil)
			if err != nil {
				f.Fatal(err)
			}
			owner := store.Public
			if i%3 == 2 {
				owner = fuzzTenant
			}
			add(b, owner)
		}
	}
	for _, body := range []string{`{"category":"shoes","price":{"amount":"79.99"},"tags":null,"flag":false}`,
		`{"category":"ünïcode","tags":[["nested"],{"sku":"a"}],"stock":1e2,"at":"2026-05-03T10:00:00.5Z"}`,
		`{"id":"cand-private","score":0.99,"cost":"1.00","record":{"category":"running_shoes","price":{"amount":"1.00","currency":"EUR"}}}`} {
		add([]byte(body), fuzzTenant)
	}
	for _, d := range docs {
		ctx := store.WithPrincipal(context.Background(), d.Owner)
		if _, err := s.Put(ctx, d); err != nil {
			f.Fatalf("fixture %s: %v", d.Body, err)
		}
	}
	return s, ix
}

// resolveSeeds are the intents of the project's fixtures.
func resolveSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	files, _ := filepath.Glob(filepath.Join("aql", "testdata", "valid", "*.json"))
	files = append(files, filepath.Join("..", "testdata", "demo", "intent.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
		// Without the fixture's unparsable did:key kid, which refuses it
		// (R1) before anything is evaluated.
		seeds = append(seeds, []byte(strings.Replace(string(b), `, "kid": "did:key:z6MkaqlstoreFixtureIssuer#key-1"`, "", 1)))
	}
	policies := []string{"ranked_set", "full_set", "single_best"}
	for i, tree := range planBlocks(f, "plan") {
		// The plan tests' template, with each policy in turn and a
		// projection that some documents lack (R4).
		include := []string{`["/"]`, `["/category","/price"]`, `["/tags/*"]`}[i%3]
		seeds = append(seeds, []byte(`{"intent_id":"urn:oap:intent:plan","issuer_did":"did:web:plan.example","category":"knowledge",`+
			`"constraints":`+strings.TrimSpace(tree)+`,"projection":{"include":`+include+`},`+
			`"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},"resolution_policy":"`+policies[i%3]+`",`+
			`"signature":{"alg":"EdDSA","value":"x"}}`))
	}
	return seeds
}

// planBlocks returns the inputs of every cmd block of the datadriven
// files under testdata/plan (the lines between the command and "----").
func planBlocks(f *testing.F, cmd string) []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "plan", "*"))
	var blocks []string
	for _, name := range files {
		file, err := os.Open(name)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 1<<20)
		var cur *strings.Builder
		for sc.Scan() {
			line := sc.Text()
			switch {
			case cur != nil && line == "----":
				blocks = append(blocks, cur.String())
				cur = nil
			case cur != nil:
				cur.WriteString(line + "\n")
			case line == cmd || strings.HasPrefix(line, cmd+" "):
				cur = &strings.Builder{}
			}
		}
		file.Close()
		if err := sc.Err(); err != nil {
			f.Fatal(err)
		}
	}
	if len(blocks) == 0 {
		f.Fatalf("no %s blocks under testdata/plan", cmd)
	}
	return blocks
}

// FuzzCursor: a cursor round-trips the page state it encodes; any other
// text is ErrBadCursor, so that a cursor a client altered, or one of
// another intent, can never continue a resolution; and whatever bytes
// the resolver's key seals (a hostile payload, should the key leak)
// decode to a state or an ErrBadCursor, never a panic.
func FuzzCursor(f *testing.F) {
	f.Add("0.91", "demo:trail-runner", uint32(3), 2, "", []byte(`{}`))
	f.Add("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", uint32(1<<32-1), 1<<40, "x.y", []byte(`{"num":1,"rank":1}`))
	f.Add("-1e-7", "ünï", uint32(0), -1, "eyJ9.AAAA", []byte(`[`))
	in := cursorIntent(f, "urn:oap:intent:cursor-a")
	other := cursorIntent(f, "urn:oap:intent:cursor-b")
	signer := testSigner()
	f.Fuzz(func(t *testing.T, score, id string, num uint32, rank int, tampered string, payload []byte) {
		if utf8.ValidString(score) && utf8.ValidString(id) {
			state := cursorState{score: canon.Number(score), id: id, num: num, rank: rank}
			c, err := encodeCursor(signer, in, state)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeCursor(signer, in, c)
			if err != nil || *got != state {
				t.Fatalf("cursor of %+v decodes to %+v, %v", state, got, err)
			}
			if _, err := decodeCursor(signer, other, c); !errors.Is(err, ErrBadCursor) {
				t.Fatalf("a cursor of another intent: %v", err)
			}
			if tampered != c {
				if st, err := decodeCursor(signer, in, tampered); !errors.Is(err, ErrBadCursor) || st != nil {
					t.Fatalf("cursor %q, not the one issued, decodes to %+v, %v", tampered, st, err)
				}
			}
		}
		sealed := signer.Sealer(cursorPurpose).Seal(payload)
		if st, err := decodeCursor(signer, in, sealed); err != nil && (!errors.Is(err, ErrBadCursor) || st != nil) {
			t.Fatalf("sealed payload %q: %+v, %v", payload, st, err)
		}
	})
}

func cursorIntent(f *testing.F, id string) *aql.Intent {
	in, err := aql.Parse([]byte(`{"intent_id":"`+id+`","issuer_did":"did:web:c.example","category":"knowledge",`+
		`"constraints":{"path":"/a","operator":"exists","value":true},"projection":{"include":["/"]},`+
		`"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},"resolution_policy":"full_set",`+
		`"signature":{"alg":"EdDSA","value":"x"}}`), nil)
	if err != nil {
		f.Fatal(err)
	}
	return in
}
