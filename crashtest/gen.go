package crashtest

import (
	"fmt"
	"math/rand/v2"

	"github.com/aqlstore/aqlstore/internal/corpus"
)

// corpusSeed is the seed of every generated JSON document. Uniqueness
// comes from the document index, which no two mutations share (gen.next).
const corpusSeed = 7

// jsonKinds are the corpus kinds the workload puts.
var jsonKinds = []string{"manifest", "offer", "knowledge", "message", "candidate"}

// agents are the AIDP actors, few so that queries on them match.
var agents = []string{"agent:alpha", "agent:beta", "agent:gamma"}

// gen makes the bodies of one writer's documents. Every body it makes has
// a natural key no other body has: a corpus document's key derives from
// its index, a message's from the same counter.
type gen struct {
	rng  *rand.Rand
	next int // the next unused index
}

func (g *gen) index() int {
	i := g.next
	g.next++
	return i
}

// json returns a corpus document of a random kind. A candidate's record is
// the offer of the same index, so the counter is what keeps an offer and a
// candidate from ever sharing content.
func (g *gen) json() []byte {
	b, err := corpus.Document(jsonKinds[g.rng.IntN(len(jsonKinds))], corpusSeed, g.index(), nil)
	if err != nil {
		panic(err) // the kinds are corpus's own: cannot fail
	}
	return b
}

// pairl returns a PAIRL v1.1 message and its @mid; parent, when not "",
// is the @mid it replies to. Some messages carry a #cost, which queries
// look for; none is under a @budget, so V8 never refuses one.
func (g *gen) pairl(parent string) (mid string, body []byte) {
	mid = fmt.Sprintf("ref:msg:crash-%d", g.index())
	h := "@v 1\n@mid " + mid + "\n@ts 2026-01-31T10:00:00Z\n"
	if parent != "" {
		h += "@parent " + parent + "\n"
	}
	verb := []string{"req{t=specs}", "cmp{t=research}", "ack{}"}[g.rng.IntN(3)]
	b := h + "\n" + verb + " @rid=a1\n"
	if g.rng.IntN(2) == 0 {
		b += fmt.Sprintf("#cost val=0.%02d cur=USD @rid=c1\n", g.rng.IntN(100))
	}
	return mid, []byte(b)
}

// envelope returns an AIDP intent envelope (the draft's §19.1 example with
// its own envelope_id and actor) and its envelope_id.
func (g *gen) envelope() (id string, body []byte) {
	id = fmt.Sprintf("env-crash-%d", g.index())
	return id, fmt.Appendf(nil, `{"aidp_version":"1.0-draft","msg_type":"IE","canon":"AIDP-JS-Canon1",
"payload":{"envelope_id":%q,"timestamp":"2026-01-13T09:14:00+02:00",
"actor_ref":{"agent_id":%q,"issuer":"did:example:issuerA","identity_ref":"urn:aidp:id:issuerA:agent-alpha"},
"authority_ref":{"cap_id":"cap:alpha:pay-v1","issuer":"did:example:authA","cap_ref":"urn:aidp:cap:authA:cap-alpha-pay-v1","rev_ref":"urn:aidp:rev:authA:list-01"},
"intent_body":{"action":"payment.create","target":{"domain":"svc:payments","resource":"acct:merchant-123"},"parameters":{"amount":50,"currency":"EUR","memo":"invoice-8841"}},
"constraints":{"not_before":"2026-01-13T09:14:00+02:00","not_after":"2026-01-13T09:19:00+02:00","max_uses":1,"risk_tier":"high","idempotency_key":"idem_3d7f0d"},
"delegation_chain":[],
"observability_hooks":{"delivery_mode":"push","return_to":{"type":"inbox","ref":"urn:aidp:inbox:agent:alpha"},"required_fields":["envelope_id","execution_id","status","attestation"],"timeout_sec":30}},
"proof":{"alg":"ed25519","kid":"key:agent-alpha-1","sig":"BASE64URL(...)"}}`, id, agents[g.rng.IntN(len(agents))])
}

// observation returns an AIDP observation of envelope envID (the §19.2
// example with its own execution_id and a random status).
func (g *gen) observation(envID string) []byte {
	status := []string{"executed", "failed"}[g.rng.IntN(2)]
	return fmt.Appendf(nil, `{"aidp_version":"1.0-draft","msg_type":"OB","canon":"AIDP-JS-Canon1",
"payload":{"envelope_id":%q,"execution_id":"exec-%d","timestamp":"2026-01-13T09:14:02+02:00","status":%q,
"result":{"payment_id":"pay_7712","state":"captured"},
"side_effects":[{"resource":"acct:merchant-123","delta":{"captured_eur":50}}],
"attestation":{"boundary_id":"boundary:payments-gw-1","issuer":"did:example:paymentsDomain","attest_profile":"AIDP-OB-Attest1","decision":"authorized","policy_digest":"sha256:5d3a...e91"}},
"proof":{"alg":"ed25519","kid":"key:boundary-payments-1","sig":"BASE64URL(...)"}}`, envID, g.index(), status)
}
