package execintent

// The member lists of ExecutionIntent.v1.schema.json, in its order.
var (
	topRequired = []string{"schemaVersion", "intentId", "tenantId", "agentId", "requestFingerprint",
		"riskProfile", "spendBounds", "policyBinding", "idempotencyKey", "nonce", "expiresAt", "createdAt", "intentHash"}
	topKnown = append([]string{"runId", "agreementHash", "quoteId", "metadata"}, topRequired...)

	requestMembers = []string{"canonicalization", "method", "path", "querySha256", "bodySha256", "requestSha256"}
	riskMembers    = []string{"riskClass", "sideEffecting", "expectedDeterminism", "maxLossCents", "requiresHumanApproval"}
	spendMembers   = []string{"currency", "maxAmountCents"}
	policyMembers  = []string{"policyId", "policyVersion", "policyHash", "verificationMethodHash"}
)

// validate checks doc against the schema (written out in Go: the schema
// file is only read by the tests, which hold the two in agreement) and
// the store's own rules, and fills an Intent.
func validate(doc map[string]any) (*Intent, ErrorList) {
	c := &checker{}
	o := obj{c: c, m: doc}
	o.members(topRequired, topKnown)
	o.constant("schemaVersion", SchemaVersion)
	in := &Intent{doc: doc,
		IntentID:       o.key("intentId", 1, 200),
		TenantID:       o.key("tenantId", 1, 200),
		AgentID:        o.str("agentId", 1, 200),
		RunID:          o.str("runId", 0, 200),
		AgreementHash:  o.hex64("agreementHash"),
		QuoteID:        o.str("quoteId", 0, 200),
		Request:        requestFingerprint(o.object("requestFingerprint")),
		Risk:           riskProfile(o.object("riskProfile")),
		Spend:          spendBounds(o.object("spendBounds")),
		Policy:         policyBinding(o.object("policyBinding")),
		IdempotencyKey: o.key("idempotencyKey", 1, 200),
		Nonce:          o.key("nonce", 8, 256),
		ExpiresAt:      o.instant("expiresAt"),
		Metadata:       o.object("metadata").m,
		CreatedAt:      o.instant("createdAt"),
		IntentHash:     o.hex64("intentHash"),
	}
	return in, c.errs
}

func requestFingerprint(o obj) RequestFingerprint {
	o.members(requestMembers, requestMembers)
	o.constant("canonicalization", "rfc8785-jcs")
	r := RequestFingerprint{Method: o.str("method", 1, 16), Path: o.str("path", 1, 2048),
		QuerySHA256: o.hex64("querySha256"), BodySHA256: o.hex64("bodySha256"), RequestSHA256: o.hex64("requestSha256")}
	r.Canonicalization, _ = o.m["canonicalization"].(string)
	return r
}

func riskProfile(o obj) RiskProfile {
	o.members(riskMembers, riskMembers)
	return RiskProfile{
		RiskClass:             o.enum("riskClass", "read", "compute", "action", "financial"),
		SideEffecting:         o.boolean("sideEffecting"),
		ExpectedDeterminism:   o.enum("expectedDeterminism", "deterministic", "bounded_nondeterministic", "open_nondeterministic"),
		MaxLossCents:          o.integer("maxLossCents", 0),
		RequiresHumanApproval: o.boolean("requiresHumanApproval"),
	}
}

func spendBounds(o obj) SpendBounds {
	o.members(spendMembers, spendMembers)
	return SpendBounds{Currency: o.str("currency", 3, 8), MaxAmountCents: o.integer("maxAmountCents", 0)}
}

func policyBinding(o obj) PolicyBinding {
	o.members(policyMembers, policyMembers)
	return PolicyBinding{PolicyID: o.str("policyId", 1, 200), PolicyVersion: o.integer("policyVersion", 1),
		PolicyHash: o.hex64("policyHash"), VerificationMethodHash: o.hex64("verificationMethodHash")}
}
