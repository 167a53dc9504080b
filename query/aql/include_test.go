package aql

import (
	"errors"
	"strings"
	"testing"
)

// TestIncludeByPositionRefused: an include that names an array element by
// position is refused at its pointer, with the * form as the fix; an
// include without one, and an exclude with one, are accepted.
func TestIncludeByPositionRefused(t *testing.T) {
	intent := func(projection string) []byte {
		return []byte(`{"intent_id":"urn:oap:intent:include","issuer_did":"did:web:agent.example","category":"discovery",
			"constraints":{"path":"/a","operator":"exists","value":true},"projection":` + projection + `,
			"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},"resolution_policy":"ranked_set",
			"signature":{"alg":"EdDSA","value":"x"}}`)
	}
	_, err := Parse(intent(`{"include":["/tool/name","/pricing/models/1/tiers","/m~1n/0"]}`), nil)
	var inv *InvalidError
	if !errors.As(err, &inv) || len(inv.Problems) != 2 {
		t.Fatalf("two positional includes: %v, want two problems", err)
	}
	for i, want := range []struct{ pointer, fix string }{
		{"/projection/include/1", `"/pricing/models/*/tiers"`},
		{"/projection/include/2", `"/m~1n/*"`},
	} {
		p := inv.Problems[i]
		if p.Pointer != want.pointer || p.Code != CodeBadPointer || !strings.Contains(p.Message, want.fix) {
			t.Errorf("problem %d: %+v, want %s at %s suggesting %s", i, p, CodeBadPointer, want.pointer, want.fix)
		}
	}
	for _, ok := range []string{
		`{"include":["/pricing/models/*/tiers","/01/x","/-"]}`, // "01" and "-" are no array positions
		`{"include":["/pricing"],"exclude":["/pricing/models/0"]}`,
	} {
		if _, err := Parse(intent(ok), nil); err != nil {
			t.Errorf("projection %s: %v", ok, err)
		}
	}
}
