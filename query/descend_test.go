package query

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// TestManyDescendIntentEqualsFullScan: intents whose paths hold eight
// `**` over a store with a document nested 63 deep. Expanding such a path
// over the path dictionary took exponential time in the number of `**`
// and never finished with eight; it must now answer within the request's
// deadline, and answer what a full scan does.
func TestManyDescendIntentEqualsFullScan(t *testing.T) {
	s, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deep := strings.Repeat(`{"b":[1],"a":`, canon.DefaultMaxDepth-2) + `{"b":[1]}` + strings.Repeat("}", canon.DefaultMaxDepth-2)
	for _, body := range []string{deep, `{"a":{"zz":1}}`, `{"c":true}`} {
		if _, err := s.Put(context.Background(), store.Document{Body: []byte(body), Kind: canon.KindJSON}); err != nil {
			t.Fatal(err)
		}
	}
	for _, leaf := range []string{
		`{"path":"/**/**/**/**/**/**/**/**/zz","operator":"exists","value":false}`,
		`{"path":"/**/**/**/**/**/**/**/**/zz","operator":"exists","value":true}`,
		`{"path":"/**/**/**/**/**/**/**/**/a/b/*","operator":"eq","value":1}`,
	} {
		src := `{"intent_id":"urn:oap:intent:descend","issuer_did":"did:web:descend.example","category":"knowledge",` +
			`"constraints":` + leaf + `,"projection":{"include":["/"]},` +
			`"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},` +
			`"resolution_policy":"full_set","signature":{"alg":"EdDSA","value":"x"}}`
		in, err := aql.Parse([]byte(src), nil)
		if err != nil {
			t.Fatal(err)
		}
		opts := func(ix *index.Index) *Options {
			return &Options{Signer: testSigner(), At: at, MaxRejected: 1 << 20, Index: ix}
		}
		full, err := Resolve(context.Background(), s, in, opts(nil))
		if err != nil {
			t.Fatalf("full scan: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		type answer struct {
			r   *Response
			err error
		}
		done := make(chan answer, 1)
		go func() {
			r, err := Resolve(ctx, s, in, opts(ix))
			done <- answer{r, err}
		}()
		var got answer
		select {
		case got = <-done:
		case <-ctx.Done():
			t.Fatalf("%s: no answer within a minute", leaf)
		}
		cancel()
		if got.err != nil {
			t.Fatalf("%s: %v", leaf, got.err)
		}
		if a, b := responseJSON(full), responseJSON(got.r); a != b {
			t.Fatalf("%s: planner and full scan differ\nfull:    %s\nplanner: %s", leaf, a, b)
		}
		if len(full.Candidates) == 0 {
			t.Fatalf("%s: no candidate at all, the case shows nothing", leaf)
		}
	}
}
