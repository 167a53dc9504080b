package crashtest

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
)

// queryAt is the instant intents are evaluated at, inside their validity
// window, so that no query depends on the clock.
var queryAt = time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)

// signer signs the responses; the key is fixed because nothing checks it
// beyond the resolver needing one.
var signer = sign.NewSigner(ed25519.NewKeyFromSeed([]byte("aqlstore crash harness resolver!")))

// leaves are AQL leaves per kind, chosen to match some of the documents
// the workload puts: the corpus's controlled predicates (whose selectivity
// is known) plus a few over the message kinds.
var leaves = func() map[canon.Kind][]string {
	m := map[canon.Kind][]string{
		canon.KindPAIRL: {
			`{"path":"/records/*/val","operator":"gt","value":"0.50"}`,
			`{"path":"/parent","operator":"exists","value":true}`,
			`{"path":"/records/*/type","operator":"eq","value":"cost"}`,
		},
		canon.KindAIDPEnvelope: {
			`{"path":"/payload/actor_ref/agent_id","operator":"eq","value":"agent:beta"}`,
			`{"path":"/payload/intent_body/action","operator":"eq","value":"payment.create"}`,
		},
		canon.KindAIDPObservation: {
			`{"path":"/payload/status","operator":"eq","value":"failed"}`,
			`{"path":"/payload/execution_id","operator":"matches","value":"-[0-9]*7$"}`,
		},
	}
	for _, name := range jsonKinds {
		kind := canon.Kind(name)
		for _, p := range corpus.Predicates(name) {
			if p.Selectivity < 0.01 { // on a store of a few thousand documents, almost always empty
				continue
			}
			v, err := json.Marshal(p.Value)
			if err != nil {
				panic(err)
			}
			m[kind] = append(m[kind], fmt.Sprintf(`{"path":%q,"operator":%q,"value":%s}`, p.Path, p.Operator, v))
		}
		m[kind] = append(m[kind], `{"path":"/bucket","operator":"exists","value":true}`,
			`{"path":"/bucket","operator":"ne","value":"sel_50pct"}`)
	}
	return m
}()

// queryKinds are the kinds a query may name, in a fixed order.
var queryKinds = []canon.Kind{canon.KindManifest, canon.KindOffer, canon.KindKnowledge, canon.KindMessage,
	canon.KindCandidate, canon.KindPAIRL, canon.KindAIDPEnvelope, canon.KindAIDPObservation}

// querySpec is one random query: the kinds it names and its intent.
type querySpec struct {
	Kinds       []canon.Kind
	Constraints string
	Policy      string
	Principal   string
	PageSize    int
}

func (q querySpec) String() string {
	return fmt.Sprintf("%s over %v as %s (page size %d): %s", q.Policy, q.Kinds, q.Principal, q.PageSize, q.Constraints)
}

// intent parses the spec's intent.
func (q querySpec) intent() (*aql.Intent, error) {
	b := `{"intent_id":"urn:oap:intent:crash","issuer_did":"did:web:crash.example","category":"knowledge",` +
		`"constraints":` + q.Constraints + `,"projection":{"include":["/"]},` +
		`"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},` +
		`"resolution_policy":"` + q.Policy + `","signature":{"alg":"EdDSA","value":"x"}}`
	in, err := aql.Parse([]byte(b), nil)
	if err != nil {
		return nil, fmt.Errorf("crashtest: generated intent does not parse: %w: %s", err, b)
	}
	return in, nil
}

// randomQuery draws a query over one or two kinds: a leaf, or all_of,
// any_of or not over up to three leaves, read as one of owners.
func randomQuery(rng *rand.Rand, owners []string) querySpec {
	q := querySpec{Kinds: []canon.Kind{queryKinds[rng.IntN(len(queryKinds))]},
		Principal: owners[rng.IntN(len(owners))], PageSize: 1 + rng.IntN(60), Policy: "ranked_set"}
	if k := queryKinds[rng.IntN(len(queryKinds))]; rng.IntN(4) == 0 && k != q.Kinds[0] {
		q.Kinds = append(q.Kinds, k)
	}
	if rng.IntN(2) == 0 {
		q.Policy = "full_set"
	}
	var pool []string
	for _, k := range q.Kinds {
		pool = append(pool, leaves[k]...)
	}
	n := 1 + rng.IntN(3)
	picked := make([]string, n)
	for i := range picked {
		picked[i] = pool[rng.IntN(len(pool))]
	}
	switch rng.IntN(4) {
	case 0:
		q.Constraints = `{"all_of":[` + strings.Join(picked, ",") + `]}`
	case 1:
		q.Constraints = `{"any_of":[` + strings.Join(picked, ",") + `]}`
	case 2:
		q.Constraints = `{"not":` + picked[0] + `}`
	default:
		q.Constraints = picked[0]
	}
	return q
}
