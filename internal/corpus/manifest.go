package corpus

// Manifests follow oap-manifest.schema.json v1.0, which forbids members of
// its own at the top level, in tool and in actions; so every controlled
// value sits in a member the schema defines: the bucket class in
// /tool/categories, prices in /pricing/models/*/amount, the instant in
// /conformance/last_attested_at, plus /jurisdictions, /risk_class and
// /actions/*/side_effects.

func manifestSpecs() []spec {
	return append(bucketSpecs("/tool/categories/*"),
		priceSpec("/pricing/models/*/amount"),
		afterSpec("/conformance/last_attested_at", fieldTime),
		newSpec("jurisdiction_contains_1pct", "/jurisdictions", "contains", "LI", fieldJurisdiction, 0, rank1pct),
		newSpec("side_effects_irreversible_1pct", "/actions/*/side_effects", "eq", "irreversible", fieldSideEffects, 0, rank1pct),
		newSpec("risk_high_10pct", "/risk_class", "eq", "high", fieldRisk, 0, rank10pct),
	)
}

// writeManifest writes members in the schema's property order.
func writeManifest(e *enc, s *source) {
	e.obj()
	e.kStr("oap_version", "1.0")
	manifestTool(e, s)
	manifestEndpoints(e, s)
	e.key("auth")
	e.arr()
	e.obj()
	e.kStr("method", s.pick(authMethods))
	e.objEnd()
	e.arrEnd()
	manifestActions(e, s)
	manifestConformance(e, s)
	manifestPricing(e, s)
	manifestSLA(e, s)
	manifestTrust(e, s)
	manifestDataPolicy(e, s)
	manifestRisk(e, s)
	manifestJurisdictions(e, s)
	manifestGovernance(e, s)
	e.objEnd()
}

// host writes "tool-<seed>-<i>.example", the tool's own domain.
func host(e *enc, s *source) {
	e.name("tool-", s.seed, s.i)
	e.lit(".example")
}

// url writes "https://<host><path>" as a string.
func url(e *enc, s *source, path string) {
	e.strStart()
	e.lit("https://")
	host(e, s)
	e.lit(path)
	e.strEnd()
}

func manifestTool(e *enc, s *source) {
	e.key("tool")
	e.obj()
	e.key("id")
	e.id("tool-", s.seed, s.i)
	e.key("did")
	e.strStart()
	e.lit("did:web:")
	host(e, s)
	e.strEnd()
	adj, noun := s.pick(adjectives), s.pick(nouns)
	e.key("name")
	e.strStart()
	e.lit(adj)
	e.lit(" ")
	e.lit(noun)
	e.strEnd()
	e.key("version")
	e.strStart()
	e.num(uint64(s.between(1, 4)))
	e.lit(".")
	e.num(uint64(s.intn(20)))
	e.lit(".")
	e.num(uint64(s.intn(10)))
	e.strEnd()
	manifestPublisher(e, s)
	manifestCategories(e, s)
	manifestDescriptions(e, s, adj, noun)
	e.objEnd()
}

// publisherCount bounds the publishers, so that publishers own many tools
// (a realistic join key); a publisher's names derive from its number.
const publisherCount = 2000

func manifestPublisher(e *enc, s *source) {
	p := s.intn(publisherCount)
	e.key("publisher")
	e.obj()
	e.key("did")
	e.strStart()
	e.lit("did:web:publisher-")
	e.num(uint64(p))
	e.lit(".example")
	e.strEnd()
	e.key("legal_name")
	e.strStart()
	e.lit(surnames[p%len(surnames)])
	e.lit(" ")
	e.lit(nouns[p/len(surnames)%len(nouns)])
	e.lit(" ")
	e.lit(legalForms[p%len(legalForms)])
	e.strEnd()
	e.key("registry")
	e.obj()
	e.kStr("type", "commercial_register")
	e.key("id")
	e.strStart()
	e.lit("HRB ")
	e.num(uint64(10000 + p))
	e.strEnd()
	e.kStr("country", countries[p%len(countries)])
	e.objEnd()
	e.kBool("verified", p%3 != 0)
	e.objEnd()
}

// manifestCategories writes one or two distinct random categories and, for
// documents in a bucket class, the class name.
func manifestCategories(e *enc, s *source) {
	e.key("categories")
	e.arr()
	first := s.intn(len(toolCategories))
	for j := range s.between(1, 2) {
		e.str(toolCategories[(first+j)%len(toolCategories)])
	}
	if b := s.bucket(); b != bucketNone {
		e.str(b)
	}
	e.arrEnd()
}

func manifestDescriptions(e *enc, s *source, adj, noun string) {
	capability, audience := s.pick(capabilities), s.pick(audiences)
	e.key("description_for_humans")
	e.strStart()
	e.lit(adj)
	e.lit(" ")
	e.lit(noun)
	e.lit(" offers ")
	e.lit(capability)
	e.lit(" for ")
	e.lit(audience)
	e.lit(".")
	e.strEnd()
	e.key("description_for_agents")
	e.strStart()
	e.lit("Use this tool for ")
	e.lit(capability)
	e.lit(". Inputs and outputs are JSON objects; prices are decimal strings in EUR.")
	e.strEnd()
}

func manifestEndpoints(e *enc, s *source) {
	e.key("endpoints")
	e.obj()
	e.key("invoke")
	url(e, s, "/oap/invoke")
	if s.coin(30) {
		e.key("billing")
		url(e, s, "/oap/billing")
	}
	e.key("audit")
	url(e, s, "/oap/audit")
	e.key("data_delete")
	url(e, s, "/oap/data/delete")
	e.key("incident")
	url(e, s, "/oap/incident")
	e.objEnd()
}

func manifestConformance(e *enc, s *source) {
	attested := s.instant(fieldTime)
	e.key("conformance")
	e.obj()
	e.key("claimed_levels")
	e.arr()
	e.str(s.pick(levels))
	e.arrEnd()
	e.kStr("suite_version", "1.0.0")
	e.key("last_attested_at")
	e.instant(attested)
	e.key("next_attestation_due")
	e.instant(attested + 365*day)
	e.objEnd()
}

// manifestPricing writes a per_call model carrying the controlled price and,
// sometimes, a subscription model (its amounts sit under tiers, outside the
// price predicate's path).
func manifestPricing(e *enc, s *source) {
	e.key("pricing")
	e.obj()
	e.key("models")
	e.arr()
	e.obj()
	e.kStr("type", "per_call")
	e.key("amount")
	e.decimal(s.price())
	e.kStr("currency", "EUR")
	e.objEnd()
	if s.coin(30) {
		e.raw(`{"type":"subscription","tiers":[{"id":"standard","amount":`)
		e.decimal(int64(s.between(500, 50000)))
		e.lit(`,"currency":"EUR","interval":"month"}]}`)
	}
	e.arrEnd()
	e.objEnd()
}

func manifestSLA(e *enc, s *source) {
	p95 := s.between(20, 2000)
	e.key("sla")
	e.obj()
	e.key("uptime_target")
	e.milli(990 + s.intn(10))
	e.kInt("latency_p95_ms", p95)
	e.kInt("latency_p99_ms", p95*2)
	e.kInt("max_call_duration_ms", p95*10)
	e.key("regions")
	e.arr()
	first := s.intn(len(regions))
	for j := range s.between(1, 2) {
		e.str(regions[(first+j)%len(regions)])
	}
	e.arrEnd()
	e.kInt("incident_disclosure_within_hours", 24*s.between(1, 3))
	e.objEnd()
}

func manifestTrust(e *enc, s *source) {
	e.key("trust")
	e.obj()
	e.kBool("publisher_verified", s.coin(70))
	e.raw(`"data_residency":["EU"],"gdpr_compliant":true`)
	e.kBool("soc2_type_ii", s.coin(40))
	e.kBool("iso_27001", s.coin(50))
	e.key("trust_score")
	e.milli(s.intn(1001))
	e.kInt("incidents_last_90d", s.intn(4))
	e.objEnd()
}

func manifestDataPolicy(e *enc, s *source) {
	e.key("data_policy")
	e.obj()
	e.kBool("stores_principal_data", s.coin(60))
	e.kInt("retention_days", 30*s.intn(13))
	e.kBool("shares_with_third_parties", s.coin(20))
	e.kStr("training_on_principal_data", s.pick(trainingPolicies))
	e.kStr("deletion_endpoint", "/oap/data/delete")
	e.key("lawful_bases")
	e.arr()
	e.str(s.pick(lawfulBases))
	e.arrEnd()
	e.objEnd()
}

func manifestRisk(e *enc, s *source) {
	risk := "high"
	if !s.hit(fieldRisk, rank10pct) {
		risk = [...]string{"minimal", "limited"}[s.intn(2)]
	}
	e.kStr("risk_class", risk)
}

// manifestJurisdictions writes one to three distinct random jurisdictions
// and, for the controlled 1%, "LI" (which the random pool lacks).
func manifestJurisdictions(e *enc, s *source) {
	someOf(e, s, "jurisdictions", jurisdictions, fieldJurisdiction, "LI")
}

// someOf writes member key as an array of one to three distinct values
// of pool, consecutive from a random start, and, for the controlled 1% of
// field, rare, a value pool lacks, so that a query for it selects 1%.
func someOf(e *enc, s *source, key string, pool []string, f field, rare string) {
	e.key(key)
	e.arr()
	first := s.intn(len(pool))
	for j := range s.between(1, 3) {
		e.str(pool[(first+j)%len(pool)])
	}
	if s.hit(f, rank1pct) {
		e.str(rare)
	}
	e.arrEnd()
}

func manifestGovernance(e *enc, s *source) {
	e.key("governance")
	e.obj()
	e.key("dispute_resolution_url")
	url(e, s, "/disputes")
	e.key("contact_email")
	e.strStart()
	e.lit("support@")
	host(e, s)
	e.strEnd()
	e.objEnd()
}

// manifestActions writes one to three distinct actions. For the controlled
// 1%, one of them is irreversible (the random pool lacks that value).
func manifestActions(e *enc, s *source) {
	n := s.between(1, 3)
	irreversible := -1
	if s.hit(fieldSideEffects, rank1pct) {
		irreversible = s.intn(n)
	}
	first := s.intn(len(actionKinds))
	e.key("actions")
	e.arr()
	for j := range n {
		manifestAction(e, s, (first+j)%len(actionKinds), j == irreversible)
	}
	e.arrEnd()
}

func manifestAction(e *enc, s *source, kind int, irreversible bool) {
	a := actionKinds[kind]
	e.obj()
	e.kStr("id", a.id)
	e.kStr("version", "1.0.0")
	e.kStr("summary", a.summary)
	e.key("description_for_agents")
	e.strStart()
	e.lit(a.summary)
	e.lit(" Takes and returns a JSON object.")
	e.strEnd()
	e.raw(`"input_schema":{"type":"object"},"output_schema":{"type":"object"}`)
	actionSideEffects(e, s, irreversible)
	idempotent := s.coin(50)
	e.kBool("idempotent", idempotent)
	if idempotent {
		e.kInt("idempotency_window_seconds", 60*s.between(1, 60))
	}
	e.key("cost")
	e.obj()
	e.kStr("type", "per_call")
	e.key("amount")
	e.decimal(int64(s.between(1, 500)))
	e.kStr("currency", "EUR")
	e.objEnd()
	e.kInt("latency_p95_ms", s.between(20, 2000))
	e.key("rate_limit")
	e.obj()
	e.kInt("rpm", 60*s.between(1, 100))
	e.kInt("concurrent", s.between(1, 50))
	e.objEnd()
	e.raw(`"data_classes_in":[],"data_classes_out":[],"examples":[{"input":{},"output":{}}]`)
	e.objEnd()
}

// actionSideEffects writes side_effects and, for irreversible actions, the
// class and cooling-off period RFC 0017 asks for alongside it.
func actionSideEffects(e *enc, s *source, irreversible bool) {
	if !irreversible {
		e.kStr("side_effects", s.pick(sideEffects))
		return
	}
	e.kStr("side_effects", "irreversible")
	e.kStr("irreversibility_class", s.pick(irreversibilityClasses))
	e.kInt("irreversibility_cooling_off_seconds", 3600*s.between(1, 72))
}
