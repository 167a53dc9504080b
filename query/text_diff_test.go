package query

import (
	"context"
	"fmt"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
	"pgregory.net/rapid"
)

// TestTextPathsEqualFullScan: contains and matches over stores that keep
// trigrams at some paths (index.Config) and not at others, so that both
// lookups (trigrams, the value dictionary) meet strings of every kind:
// short, long, decimal, instant, unicode.
func TestTextPathsEqualFullScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d, s, ix := openDiffStore(t)
		defer d.remove()
		ctx := context.Background()
		for range rapid.IntRange(1, 30).Draw(t, "docs") {
			_, _ = s.Put(ctx, store.Document{Body: []byte(genObject(t, 0)), Owner: store.Public, Kind: canon.KindJSON})
		}
		if rapid.Bool().Draw(t, "reopen") {
			s, ix = d.reopen(t, s)
		}
		defer s.Close()
		for range 5 {
			var leaf string
			if rapid.Bool().Draw(t, "contains") {
				str := []rune(rapid.SampledFrom(diffStrings).Draw(t, "in"))
				i := rapid.IntRange(0, len(str)).Draw(t, "from")
				j := rapid.IntRange(i, len(str)).Draw(t, "to")
				leaf = fmt.Sprintf(`{"path":%q,"operator":"contains","value":%q}`, genPath(t), string(str[i:j]))
			} else {
				re := rapid.SampledFrom([]string{"^s", "ale$", "[0-9]+\\.[0-9]{2}", "x|y", ".", "ong", "^2026-05"}).Draw(t, "re")
				leaf = fmt.Sprintf(`{"path":%q,"operator":"matches","value":%q}`, genPath(t), re)
			}
			src := `{"intent_id":"urn:oap:intent:diff","issuer_did":"did:web:diff.example","category":"knowledge",` +
				`"constraints":[` + leaf + `],"projection":{"include":["/"]},` +
				`"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},` +
				`"resolution_policy":"full_set","signature":{"alg":"EdDSA","value":"x"}}`
			in, err := aql.Parse([]byte(src), nil)
			if err != nil {
				t.Fatalf("intent %s: %v", src, err)
			}
			compare(t, s, ix, in, "")
		}
	})
}
