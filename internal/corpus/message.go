package corpus

// agentCount bounds the agents exchanging messages.
const agentCount = 1000

// threadSize is how many consecutive messages share a thread.
const threadSize = 8

func messageSpecs() []spec {
	return append(bucketSpecs("/bucket"),
		afterSpec("/sent_at", fieldTime),
		newSpec("priority_urgent_1pct", "/priority", "eq", "urgent", fieldPriority, 0, rank1pct),
		newSpec("body_contains_0.1pct", "/body", "contains", "outage", fieldBody, 0, rank01pct),
	)
}

// writeMessage writes a generic agent message.
func writeMessage(e *enc, s *source) {
	from := s.intn(agentCount)
	to := (from + s.between(1, agentCount-1)) % agentCount // never from itself
	e.obj()
	e.key("message_id")
	e.id("msg-", s.seed, s.i)
	e.key("thread_id")
	e.id("thr-", s.seed, s.i/threadSize)
	e.key("from")
	agentDID(e, from)
	e.key("to")
	agentDID(e, to)
	e.key("sent_at")
	e.instant(s.instant(fieldTime))
	priority := "urgent"
	if !s.hit(fieldPriority, rank1pct) {
		priority = s.pick(priorities)
	}
	e.kStr("priority", priority)
	e.kStr("bucket", s.bucket())
	e.key("body")
	e.strStart()
	marker := ""
	if s.hit(fieldBody, rank01pct) {
		marker = "outage"
	}
	s.words(e, s.between(8, 40), marker)
	e.strEnd()
	e.objEnd()
}

func agentDID(e *enc, agent int) {
	e.strStart()
	e.lit("did:web:agent-")
	e.num(uint64(agent))
	e.lit(".example")
	e.strEnd()
}
