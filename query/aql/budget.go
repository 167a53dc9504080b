package aql

import (
	"github.com/aqlstore/aqlstore/canon"
	"github.com/cockroachdb/apd/v3"
)

var budgetShape = &shape{what: "budget", fields: []field{
	{"amount", true, `a decimal string such as "120.00"`},
	{"currency", true, currencyHint},
	{"allocation", true, "one of single_winner, ranked_top_k, proportional_quality"},
	{"top_k", false, "the number of candidates paid, at least 1"},
	{"distribution", false, "one share per paid candidate, summing to 1"},
}}

func (c *checker) budget(v any, ptr string, in *Intent) {
	m, ok := c.object(v, ptr, "budget")
	if !ok {
		return
	}
	c.members(m, ptr, budgetShape)
	b := &Budget{}
	if x, ok := m["amount"]; ok {
		b.AmountText, b.Amount = c.amount(x, child(ptr, "amount"), "budget.amount")
	}
	if x, ok := m["currency"]; ok {
		b.Currency, _ = c.pattern(x, child(ptr, "currency"), "budget.currency", currencyPattern, currencyHint)
	}
	if x, ok := m["allocation"]; ok {
		b.Allocation, _ = c.enum(x, child(ptr, "allocation"), "budget.allocation", "single_winner", "ranked_top_k", "proportional_quality")
	}
	c.topK(m, ptr, b)
	in.Budget = b
}

// amount reads a money amount: a decimal string, because RFC 8785 would
// turn the number 100.00 into 100 and a signature over it would differ.
func (c *checker) amount(v any, ptr, what string) (string, *apd.Decimal) {
	s, ok := c.pattern(v, ptr, what, amountPattern, `a decimal string such as "120.00"`)
	if !ok {
		return s, nil
	}
	d, _ := ParseDecimal(s)
	return s, d
}

// topK reads top_k and distribution and, for ranked_top_k, checks that
// they agree and that the shares sum to exactly 1 (RFC 0020 §3.4; the
// schema only says so in a description).
func (c *checker) topK(m map[string]any, ptr string, b *Budget) {
	kv, hasK := m["top_k"]
	dv, hasD := m["distribution"]
	okK, okD := hasK, hasD
	if hasK {
		b.TopK, okK = c.integer(kv, child(ptr, "top_k"), "budget.top_k", 1)
	}
	if hasD {
		b.Distribution, okD = c.distribution(dv, child(ptr, "distribution"))
	}
	if b.Allocation != "ranked_top_k" {
		return
	}
	if !hasK {
		c.rulef(child(ptr, "top_k"), CodeMissingField, "allocation ranked_top_k needs top_k: add how many ranked candidates are paid, e.g. 3")
	}
	if !hasD {
		c.rulef(child(ptr, "distribution"), CodeMissingField, "allocation ranked_top_k needs distribution: add one share per paid candidate, e.g. [0.5, 0.3, 0.2]")
	}
	if okK && okD {
		c.shares(b, child(ptr, "distribution"))
	}
}

// distribution reads an array of shares, each a number in [0, 1].
func (c *checker) distribution(v any, ptr string) ([]*apd.Decimal, bool) {
	a, ok := v.([]any)
	if !ok {
		c.schemaf(ptr, CodeBadType, "budget.distribution must be an array of shares such as [0.5, 0.3, 0.2], not %s", describe(v))
		return nil, false
	}
	out := make([]*apd.Decimal, len(a))
	all := true
	for i, e := range a {
		d, ok := c.unit(e, elem(ptr, i), "a distribution share")
		out[i], all = d, all && ok
	}
	return out, all
}

// shares checks a ranked_top_k distribution against top_k and sums it
// exactly: 0.4+0.25+0.15+0.12+0.08 is 1 in decimal, not in float64.
func (c *checker) shares(b *Budget, ptr string) {
	if len(b.Distribution) != b.TopK {
		c.rulef(ptr, CodeBadValue, "distribution has %d shares but top_k is %d; give one share per paid candidate", len(b.Distribution), b.TopK)
		return
	}
	sum := new(apd.Decimal)
	for _, d := range b.Distribution {
		// Precision 0: no rounding, so the sum is exact.
		if _, err := apd.BaseContext.Add(sum, sum, d); err != nil {
			c.rulef(ptr, CodeBadValue, "distribution cannot be summed exactly (%v); use shorter decimals", err)
			return
		}
	}
	if sum.Cmp(decimalOne) != 0 {
		c.rulef(ptr, CodeBadValue, "distribution sums to %s, not exactly 1; adjust the shares (they are summed as exact decimals)", sum.Text('f'))
	}
}

var qualityShape = &shape{what: "quality_floor", fields: []field{
	{"performance_score", false, "a number in [0, 1]"},
	{"conformance_level", false, `an RFC 0019 level such as "L2"`},
	{"latency_p99_ms", false, "an integer of at least 0"},
	{"provider_reputation", false, "a number in [0, 1]"},
	{"cooling_off_minutes", false, "an integer of at least 0"},
}}

// qualityChecks check one declared signal's bound.
var qualityChecks = map[string]func(c *checker, v any, ptr, what string) bool{
	"performance_score":   (*checker).unitSignal,
	"provider_reputation": (*checker).unitSignal,
	"latency_p99_ms":      (*checker).countSignal,
	"cooling_off_minutes": (*checker).countSignal,
	"conformance_level":   (*checker).levelSignal,
}

// qualityFloor compiles the declared signals in RFC 8785 member order, so
// that evaluation and decision records do not depend on map order.
func (c *checker) qualityFloor(v any, ptr string, in *Intent) {
	m, ok := c.object(v, ptr, "quality_floor")
	if !ok {
		return
	}
	c.members(m, ptr, qualityShape)
	for _, k := range canon.SortedKeys(m) {
		check, known := qualityChecks[k]
		if known && check(c, m[k], child(ptr, k), "quality_floor."+k) {
			in.QualityFloor = append(in.QualityFloor, QualitySignal{Name: k, Value: m[k]})
		}
	}
}

func (c *checker) unitSignal(v any, ptr, what string) bool {
	_, ok := c.unit(v, ptr, what)
	return ok
}

func (c *checker) countSignal(v any, ptr, what string) bool {
	_, ok := c.integer(v, ptr, what, 0)
	return ok
}

func (c *checker) levelSignal(v any, ptr, what string) bool {
	_, ok := c.str(v, ptr, what)
	return ok
}
