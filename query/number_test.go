package query

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// openIndexed opens a store with its index and puts one document a line.
func openIndexed(t *testing.T, docs ...string) (*store.Store, *index.Index) {
	t.Helper()
	s, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true, MemTableSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, d := range docs {
		if _, err := s.Put(context.Background(), store.Document{Body: []byte(d)}); err != nil {
			t.Fatalf("put %s: %v", d, err)
		}
	}
	return s, ix
}

// leafIntent parses an intent with one constraint.
func leafIntent(constraint string) ([]byte, error) {
	src := strings.Replace(`{"intent_id":"urn:oap:intent:n","issuer_did":"did:web:n.example","category":"knowledge",
		"constraints":[%s],"projection":{"include":["/"]},"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},
		"signature":{"alg":"EdDSA","value":"x"}}`, "%s", constraint, 1)
	return []byte(src), nil
}

// TestNumberRuleBothSides: a number literal in an intent denotes the
// double it rounds to, as the same literal does in a stored document;
// decimal strings keep every digit. The planner (equality and range
// postings) and the full scan agree on every case.
func TestNumberRuleBothSides(t *testing.T) {
	s, ix := openIndexed(t,
		`{"n":0.30000000000000001}`, // #1, stored as 0.3
		`{"n":9007199254740993}`,    // #2, stored as 9007199254740992
		`{"n":"0.30000000000000001"}`,
		`{"n":0.3,"m":1}`,
		`{"n":123456789012345678901234567890}`, // #5, stored as 1.2345678901234568e+29
	)
	for _, c := range []struct{ constraint, want string }{
		{`{"path":"/n","operator":"eq","value":0.30000000000000001}`, "#1 #4"},
		{`{"path":"/n","operator":"eq","value":0.3}`, "#1 #4"},
		{`{"path":"/n","operator":"eq","value":"0.30000000000000001"}`, "#3"},
		{`{"path":"/n","operator":"eq","value":9007199254740993}`, "#2"},
		{`{"path":"/n","operator":"eq","value":9007199254740992}`, "#2"},
		{`{"path":"/n","operator":"in","value":[9007199254740993,1]}`, "#2"},
		{`{"path":"/n","operator":"gt","value":9007199254740992}`, "#5"},
		{`{"path":"/n","operator":"eq","value":123456789012345678901234567891}`, "#5"},
		{`{"path":"/n","operator":"lte","value":0.30000000000000001}`, "#1 #4"},
		{`{"path":"/n","operator":"gt","value":0.3}`, "#2 #3 #5"},
		{`{"path":"/n","operator":"gte","value":0.29999999999999999}`, "#1 #2 #3 #4 #5"},
	} {
		b, _ := leafIntent(c.constraint)
		in, err := aql.Parse(b, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.constraint, err)
		}
		if got := acceptedNums(t, s, in, store.Public, ix); got != c.want {
			t.Errorf("%s: accepted %s, want %s", c.constraint, got, c.want)
		}
	}
}

// TestIntentNumberOutOfRange: a number beyond the double range has no
// value on either side; in an intent it is refused at its pointer.
func TestIntentNumberOutOfRange(t *testing.T) {
	b, _ := leafIntent(`{"path":"/n","operator":"gte","value":1e400}`)
	_, err := aql.Parse(b, nil)
	var ie *aql.InvalidError
	if !errors.As(err, &ie) || len(ie.Problems) != 1 || ie.Problems[0].Pointer != "/constraints/0/value" ||
		!strings.Contains(ie.Problems[0].Message, "decimal string") {
		t.Fatalf("got %v, want one problem at /constraints/0/value", err)
	}
}
