package corpus

func knowledgeSpecs() []spec {
	return append(bucketSpecs("/bucket"),
		afterSpec("/created_at", fieldTime),
		newSpec("confidence_gte_0.1pct", "/confidence", "gte", 0.99, fieldConfidence, 0, rank01pct),
		newSpec("topic_eq_1pct", "/topics/*", "eq", "quantum_gravity", fieldTopic, 0, rank1pct),
	)
}

// writeKnowledge writes a knowledge node. Its links point only at earlier
// nodes of the same seed, so every link resolves in any prefix of a corpus.
func writeKnowledge(e *enc, s *source) {
	e.obj()
	e.key("node_id")
	e.id("kn-", s.seed, s.i)
	e.key("title")
	e.strStart()
	e.lit(s.pick(adjectives))
	e.lit(" notes on ")
	e.lit(s.pick(capabilities))
	e.strEnd()
	e.key("body")
	e.strStart()
	s.words(e, s.between(30, 80), "")
	e.strEnd()
	knowledgeTopics(e, s)
	e.kStr("bucket", s.bucket())
	e.key("created_at")
	e.instant(s.instant(fieldTime))
	knowledgeLinks(e, s)
	e.key("confidence")
	e.milli(knowledgeConfidence(s))
	e.objEnd()
}

// knowledgeTopics writes one to three distinct random topics and, for the
// controlled 1%, "quantum_gravity" (which the random pool lacks).
func knowledgeTopics(e *enc, s *source) {
	someOf(e, s, "topics", topics, fieldTopic, "quantum_gravity")
}

func knowledgeLinks(e *enc, s *source) {
	e.key("links")
	e.arr()
	if s.i > 0 {
		for range s.intn(5) {
			e.id("kn-", s.seed, s.intn(s.i))
		}
	}
	e.arrEnd()
}

// knowledgeConfidence returns thousandths: ≥ 0.990 exactly for the
// controlled 0.1%, at most 0.989 otherwise.
func knowledgeConfidence(s *source) int {
	if s.hit(fieldConfidence, rank01pct) {
		return s.between(990, 1000)
	}
	return s.between(0, 989)
}
