package query

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/aqlstore/aqlstore/internal/race"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/eval"
	"github.com/aqlstore/aqlstore/query/project"
	"github.com/aqlstore/aqlstore/store"
)

// judgeBytes is judge as it was before the Members: every walk (MatchRaw,
// EvalRaw, ApplyRaw) starts again from the root of the bytes. It is kept
// here as the reference judge must agree with, and as the benchmark's
// baseline; the judging around the walks is judge's own (judgeWith).
func judgeBytes(ev *eval.Evaluator, in *aql.Intent, at string, doc *store.StoredDoc, records bool) (*Candidate, *Rejection, error) {
	raw := doc.JSON()
	return judgeWith(in, at, doc, records, bytesWalks{ev, in, raw})
}

// bytesWalks are the walks of judgeBytes, each from the root of the bytes.
type bytesWalks struct {
	ev  *eval.Evaluator
	in  *aql.Intent
	raw []byte
}

func (w bytesWalks) match() bool { return w.ev.MatchRaw(w.in.Constraints, w.raw) }

func (w bytesWalks) eval() (bool, []aql.Evaluation) {
	return w.ev.EvalRaw(w.in.Constraints, w.raw, nil)
}

func (w bytesWalks) apply() (canon.RawValue, []string, error) {
	p, missing, err := project.ApplyRaw(w.raw, w.in.Projection.Include, w.in.Projection.Exclude)
	return canon.AppendValue(nil, p), missing, err
}

// manifestDocs puts n generated manifests (seed 1) in an indexed store and
// returns them as read back.
func manifestDocs(tb testing.TB, n int) []*store.StoredDoc {
	tb.Helper()
	s, _, err := index.Open(tb.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	ctx := context.Background()
	batch := make([]store.Document, 0, n)
	for i := range n {
		body, _ := corpus.Document("manifest", 1, i, nil)
		batch = append(batch, store.Document{Body: body, Kind: canon.KindManifest})
	}
	if _, err := s.PutBatch(ctx, batch); err != nil {
		tb.Fatal(err)
	}
	var docs []*store.StoredDoc
	for doc, err := range s.Scan(ctx, canon.KindManifest) {
		if err != nil {
			tb.Fatal(err)
		}
		docs = append(docs, doc)
	}
	if len(docs) != n {
		tb.Fatalf("read back %d of %d manifests", len(docs), n)
	}
	return docs
}

// judgeIntent is a full_set discovery intent over constraints (a JSON
// array or object) with the projection proj (a JSON object).
func judgeIntent(tb testing.TB, constraints, proj string) *aql.Intent {
	return parseIntent(tb, fmt.Appendf(nil, `{"intent_id":"urn:oap:intent:bench","issuer_did":"did:web:bench.example",
		"category":"discovery","constraints":%s,"projection":%s,
		"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},"resolution_policy":"full_set",
		"signature":{"alg":"EdDSA","value":"x"}}`, constraints, proj))
}

const (
	benchCategory = `{"path":"/tool/categories/*","operator":"eq","value":"logistics"}`
	benchInclude  = `{"include":["/tool/id"]}`
)

// TestJudgeMatchesJudgeBytes: judging through a Members value gives exactly what
// the walks over the bytes gave (candidates, payloads, records, errors),
// on generated manifests and odd documents, with and without records.
func TestJudgeMatchesJudgeBytes(t *testing.T) {
	docs := manifestDocs(t, 300)
	s := openStore(t)
	putAll(t, s, context.Background(),
		`{"a\"b":{"c\\d":1},"\u00e9":[{"":2}],"tool":{"id":"x","categories":["logistics"]},"*":3}`,
		`{}`, `{"tool":{}}`, `{"tool":{"id":null,"categories":"logistics"}}`, `{"zz":1,"tool":{"id":[1,{"id":2}]}}`)
	for doc, err := range s.Scan(context.Background(), "") {
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
	intents := []*aql.Intent{
		judgeIntent(t, benchCategory, benchInclude),
		judgeIntent(t, `[{"path":"/**/id","operator":"exists","value":true}]`, `{"include":["/tool","/*"],"exclude":["/tool/id"]}`),
		judgeIntent(t, `{"any_of":[{"path":"/tool/id","operator":"exists","value":true},{"path":"/*","operator":"eq","value":3}]}`,
			`{"include":["/tool/id","/a\"b/c\\d","/pricing"]}`),
		judgeIntent(t, `[{"path":"/nothing","operator":"exists","value":false},{"path":"/*/*","operator":"ne","value":"q"}]`,
			`{"include":["/"],"exclude":["/**/id"]}`),
		judgeIntent(t, `{"path":"/tool/categories","operator":"contains","value":"logistics"}`, `{"include":["/*/categories"]}`),
	}
	ev, evBytes := eval.New(), eval.New()
	for i, in := range intents {
		for _, doc := range docs {
			for _, records := range []bool{true, false} {
				c, rej, err := judge(ev, in, "at", doc, records)
				wc, wrej, werr := judgeBytes(evBytes, in, "at", doc, records)
				if !reflect.DeepEqual(c, wc) || !reflect.DeepEqual(rej, wrej) || fmt.Sprint(err) != fmt.Sprint(werr) {
					t.Fatalf("intent %d, document %s, records %v:\njudge      %+v %+v %v\njudgeBytes %+v %+v %v",
						i, doc.JSON(), records, c, rej, err, wc, wrej, werr)
				}
			}
		}
	}
}

// BenchmarkJudge judges generated manifests against a wildcard category
// constraint projecting /tool/id, through the walks over the bytes
// (bytes) and through one Members (rawdoc): over the manifests the intent
// accepts (the cost of a candidate) and over all of them (about one in ten
// accepted), with records, and without (the filter Resolve runs when it
// keeps no rejections).
func BenchmarkJudge(b *testing.B) {
	all := manifestDocs(b, 2000)
	in := judgeIntent(b, benchCategory, benchInclude)
	var accepted []*store.StoredDoc
	size := 0
	for _, doc := range all {
		if c, _, _ := judgeBytes(eval.New(), in, "at", doc, true); c != nil {
			accepted = append(accepted, doc)
			size += len(doc.JSON())
		}
	}
	if len(accepted) == 0 {
		b.Fatal("the intent accepts no manifest")
	}
	b.Logf("%d of %d manifests accepted, %d bytes on average", len(accepted), len(all), size/len(accepted))
	type judgeFunc func(*eval.Evaluator, *aql.Intent, string, *store.StoredDoc, bool) (*Candidate, *Rejection, error)
	for _, set := range []struct {
		name string
		docs []*store.StoredDoc
	}{{"accepted", accepted}, {"all", all}} {
		for _, records := range []bool{true, false} {
			for _, j := range []struct {
				name string
				fn   judgeFunc
			}{{"bytes", judgeBytes}, {"rawdoc", judge}} {
				b.Run(fmt.Sprintf("%s/records=%v/%s", set.name, records, j.name), func(b *testing.B) {
					ev := eval.New()
					b.ReportAllocs()
					for i := 0; b.Loop(); i++ {
						j.fn(ev, in, "at", set.docs[i%len(set.docs)], records)
					}
				})
			}
		}
	}
}

// TestJudgeAllocations: judging an accepted manifest builds no closures
// and no projection marks: its allocations are the candidate's own (the
// candidate, its evaluations and their values, the payload).
func TestJudgeAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts under the race detector are its own")
	}
	doc := manifestDocs(t, 1)[0]
	cat, _ := canon.Member(doc.Body, "tool")
	cats, _ := canon.Member(cat, "categories")
	first := ""
	canon.EachElement(cats, func(v []byte) bool { first, _ = canon.RawString(v); return false })
	in := judgeIntent(t, fmt.Sprintf(`{"path":"/tool/categories/*","operator":"eq","value":%q}`, first), benchInclude)
	ev := eval.New()
	allocs := testing.AllocsPerRun(50, func() {
		if c, _, err := judge(ev, in, "2026-05-04T00:00:00Z", doc, true); err != nil || c == nil {
			t.Fatalf("judge: %v, %v", c, err)
		}
	})
	if allocs > 5 {
		t.Errorf("judge allocates %.0f times per accepted document, want at most 5", allocs)
	}
}
