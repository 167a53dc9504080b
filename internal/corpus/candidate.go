package corpus

// writeCandidate writes the OAP candidate shape {id, score, cost, quality,
// record}. The record is byte-for-byte offer i of the same seed (the kind
// shares the offer's random stream), so offer and candidate corpora describe
// the same market; the signals are drawn after the offer's values. cost is
// the record's price as {amount, currency}, the form the README names for
// signals, so budgets can check the currency.
func writeCandidate(e *enc, s *source) {
	o := drawOffer(s)
	e.obj()
	e.key("id")
	e.id("cand-", s.seed, s.i)
	e.key("score")
	e.milli(s.intn(1001))
	e.key("cost")
	e.obj()
	e.key("amount")
	e.decimal(o.cents)
	e.kStr("currency", o.currency)
	e.objEnd()
	e.key("quality")
	e.obj()
	e.key("performance_score")
	e.milli(s.intn(1001))
	e.kStr("conformance_level", s.pick(levels))
	e.objEnd()
	e.key("record")
	o.write(e, s)
	e.objEnd()
}
