package aidp

import (
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

// Envelope is the payload of an intent envelope (IE, §18.1). Raw is the
// payload as decoded (canon's value model, read-only); the typed fields
// are the members the draft defines.
type Envelope struct {
	EnvelopeID         string
	Timestamp          time.Time // UTC
	ActorRef           ActorRef
	AuthorityRef       AuthorityRef
	IntentBody         IntentBody
	Constraints        Constraints
	DelegationChain    []Link // may be empty
	ObservabilityHooks Hooks
	Raw                map[string]any
}

// ActorRef identifies the agent (§18.1.1). Closed: unknown members are
// rejected.
type ActorRef struct {
	AgentID     string
	Issuer      string
	IdentityRef string // dereferenceable URI/URN-like reference
}

// AuthorityRef identifies the capability exercised (§18.1.2). Closed.
type AuthorityRef struct {
	CapID  string
	Issuer string
	CapRef string // dereferenceable reference to the capability
	RevRef string // revocation pointer
}

// IntentBody is the declared action (§18.1.3). Target and Parameters are
// open objects; Raw is intent_body as decoded, the input of its digest.
type IntentBody struct {
	Action     string
	Resource   string // target.resource
	Domain     string // target.domain: the security domain
	Target     map[string]any
	Parameters map[string]any
	Raw        map[string]any
}

// Constraints are the execution limits (§18.1.4). Every member is
// optional; members the draft does not name are kept in Raw.
type Constraints struct {
	NotBefore      *time.Time
	NotAfter       *time.Time
	MaxCost        canon.Number // "" when absent
	MaxUses        *int64
	RiskTier       string // "low", "med", "high" or ""
	IdempotencyKey string
	Raw            map[string]any
}

// Link is one delegated capability of delegation_chain (§18.1.5). Closed.
type Link struct {
	CapID       string
	Issuer      string
	CapRef      string
	ParentCapID string
	RevRef      string
	LinkProof   map[string]any // proof binding child to parent; its shape is not specified
}

// Hooks are the observability_hooks (§18.1.6, §22.9). The draft names
// only return_to in prose; the other members come from its examples.
type Hooks struct {
	DeliveryMode   string    // "push", "pull" or ""
	ReturnTo       *ReturnTo // where observations go; required for push
	RequiredFields []string  // payload members an OB must carry (§22.15.5)
	TimeoutSec     *int64
	Raw            map[string]any
}

// ReturnTo is an observation destination: a type ("inbox", "webhook") and
// a reference. The draft requires it to be pre-registered; that check
// needs a registry and is the caller's.
type ReturnTo struct {
	Type string
	Ref  string
}

// Key returns the envelope's natural key, its envelope_id (§11.6.3: an
// envelope_id is accepted at most once).
func (e *Envelope) Key() string { return EnvelopeKey(e.EnvelopeID) }

func parseEnvelope(p obj) *Envelope {
	e := &Envelope{Raw: p.m}
	e.EnvelopeID = p.id("envelope_id")
	e.Timestamp, _ = p.instant("timestamp", true)
	e.ActorRef = parseActorRef(p.object("actor_ref", true))
	e.AuthorityRef = parseAuthorityRef(p.object("authority_ref", true))
	e.IntentBody = parseIntentBody(p.object("intent_body", true))
	e.Constraints = parseConstraints(p.object("constraints", true))
	e.DelegationChain = parseChain(p)
	e.ObservabilityHooks = parseHooks(p.object("observability_hooks", true))
	return e
}

func parseActorRef(o obj) ActorRef {
	o.closed("agent_id", "issuer", "identity_ref")
	return ActorRef{AgentID: o.str("agent_id", true), Issuer: o.str("issuer", true),
		IdentityRef: o.str("identity_ref", true)}
}

func parseAuthorityRef(o obj) AuthorityRef {
	o.closed("cap_id", "issuer", "cap_ref", "rev_ref")
	return AuthorityRef{CapID: o.str("cap_id", true), Issuer: o.str("issuer", true),
		CapRef: o.str("cap_ref", true), RevRef: o.str("rev_ref", true)}
}

func parseIntentBody(o obj) IntentBody {
	b := IntentBody{Action: o.str("action", true), Raw: o.m}
	t := o.object("target", true)
	b.Target, b.Resource, b.Domain = t.m, t.str("resource", true), t.str("domain", true)
	b.Parameters = o.object("parameters", true).m
	return b
}

func parseConstraints(o obj) Constraints {
	c := Constraints{Raw: o.m}
	if t, ok := o.instant("not_before", false); ok {
		c.NotBefore = &t
	}
	if t, ok := o.instant("not_after", false); ok {
		c.NotAfter = &t
	}
	c.MaxCost = o.number("max_cost")
	c.MaxUses = o.count("max_uses")
	c.RiskTier = o.enum("risk_tier", false, "low", "med", "high")
	c.IdempotencyKey = o.str("idempotency_key", false)
	return c
}

func parseChain(p obj) []Link {
	raw := p.array("delegation_chain", true)
	links := make([]Link, 0, len(raw))
	for i, v := range raw {
		o := obj{c: p.c, ptr: p.at("delegation_chain") + "/" + itoa(i)}
		m, ok := v.(map[string]any)
		if !ok {
			p.c.fail(o.ptr, "delegation_chain element is %s, want an object", typeName(v))
			continue
		}
		o.m = m
		links = append(links, parseLink(o))
	}
	return links
}

func parseLink(o obj) Link {
	o.closed("cap_id", "issuer", "cap_ref", "parent_cap_id", "rev_ref", "link_proof")
	return Link{CapID: o.str("cap_id", true), Issuer: o.str("issuer", true), CapRef: o.str("cap_ref", true),
		ParentCapID: o.str("parent_cap_id", true), RevRef: o.str("rev_ref", true),
		LinkProof: o.object("link_proof", true).m}
}

func parseHooks(o obj) Hooks {
	h := Hooks{Raw: o.m}
	h.DeliveryMode = o.enum("delivery_mode", false, "push", "pull")
	if rt := o.object("return_to", h.DeliveryMode == "push"); rt.m != nil {
		h.ReturnTo = &ReturnTo{Type: rt.str("type", true), Ref: rt.str("ref", true)}
	}
	for i, v := range o.array("required_fields", false) {
		s, ok := v.(string)
		if !ok || s == "" {
			what := typeName(v)
			if ok {
				what = "empty"
			}
			o.c.fail(o.at("required_fields")+"/"+itoa(i), "required_fields element is %s, want a payload member name", what)
			continue
		}
		h.RequiredFields = append(h.RequiredFields, s)
	}
	h.TimeoutSec = o.count("timeout_sec")
	return h
}
