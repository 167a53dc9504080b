package pairl

import (
	"fmt"
	"math/big"
	"strings"
)

// Budget compliance (§10 V8).
//
// A @budget is the "maximum budget for this task/subtree" (§2.3). Each
// message is governed by the nearest @budget on its @parent chain, itself
// included, so a re-declared budget deeper in the thread opens a scope of
// its own and no cost is charged twice. A scope's spend is the sum of the
// #cost val of its messages in the budget's unit, exact decimals, except
// for messages that are bids (`bid` intent) or refusals (`ref` intent with
// `#fact reason=budget_exceeded`): their costs are estimates, the very
// behaviour V8 asks for, not spend. Spend over the budget is an error in
// both modes, because V8 makes refusing or bidding a MUST.

// scoped is a finding about one message of a budget scope.
type scoped struct {
	msg *Message
	f   finding
}

// budgetScope checks the spend of governed against b's @budget.
func budgetScope(b *Message, governed []*Message) []scoped {
	amt, ok := b.Budget()
	if !ok {
		return nil
	}
	var out []scoped
	spent, frac, records, msgs := new(big.Rat), fracDigits(amt.Value), 0, 0
	for _, g := range governed {
		if isEstimate(g) {
			continue
		}
		n, notes := addCosts(g, amt.Unit, spent, &frac)
		out = append(out, notes...)
		records += n
		msgs += min(n, 1)
	}
	if limit, _ := new(big.Rat).SetString(amt.Value); spent.Cmp(limit) > 0 {
		h, _ := b.Header("budget")
		out = append(out, scoped{msg: b, f: finding{cls: hard, line: h.Line, code: CodeV8,
			desc: fmt.Sprintf("spend %s %s (#cost records: %d, messages: %d) exceeds @budget %s",
				spent.FloatString(frac), amt.Unit, records, msgs, h.Value),
			fix: "refuse with ref{…} and #fact reason=budget_exceeded, or send bid{…} and await approval (§10 V8)"}})
	}
	return out
}

// addCosts adds g's #cost values in unit to spent and returns how many it
// added, with a note for each cost in another unit (never converted).
func addCosts(g *Message, unit string, spent *big.Rat, frac *int) (int, []scoped) {
	n := 0
	var notes []scoped
	for i := range g.Records {
		r := &g.Records[i]
		val, cur, ok := costOf(r)
		if !ok {
			continue
		}
		if !strings.EqualFold(cur, unit) {
			notes = append(notes, scoped{msg: g, f: finding{cls: info, line: r.Line, code: CodeBudget,
				desc: fmt.Sprintf("#cost in %s is not counted against the budget in %s", cur, unit),
				fix:  "report costs in the budget's unit"}})
			continue
		}
		x, _ := new(big.Rat).SetString(val)
		spent.Add(spent, x)
		*frac = max(*frac, fracDigits(val))
		n++
	}
	return n, notes
}

// costOf returns a #cost record's decimal value and unit.
func costOf(r *Record) (val, cur string, ok bool) {
	if r.Type != TypeCost {
		return "", "", false
	}
	v, okv := r.Get("val")
	c, okc := r.Get("cur")
	if !okv || !okc || !isDecimal(v.Text) {
		return "", "", false
	}
	return v.Text, c.Text, true
}

func fracDigits(dec string) int {
	if i := strings.IndexByte(dec, '.'); i >= 0 {
		return len(dec) - i - 1
	}
	return 0
}

// isEstimate reports whether m's costs are projections: a bid, or a
// refusal for budget reasons (§10 V8 scenarios 1 and 2).
func isEstimate(m *Message) bool {
	bid, ref, reason := false, false, false
	for i := range m.Records {
		r := &m.Records[i]
		switch {
		case r.Type == TypeIntent && r.Name == "bid":
			bid = true
		case r.Type == TypeIntent && r.Name == "ref":
			ref = true
		case r.Type == TypeFact && len(r.Fields) == 1 && r.Fields[0].Key == "reason":
			reason = reason || r.Fields[0].Value.Text == "budget_exceeded"
		}
	}
	return bid || (ref && reason)
}

// checkQuotaSums warns about #quota numbers that contradict each other
// (§6.2: rem = total - used).
func (p *parser) checkQuotaSums(r *Record) {
	total, okT := decimalField(r, "total")
	used, okU := decimalField(r, "used")
	if !okT || !okU {
		return
	}
	if used.Cmp(total) > 0 {
		p.found.add(info, r.Line, CodeQuota, "#quota used is more than total", "check the quota numbers")
	}
	rem, ok := decimalField(r, "rem")
	if ok && rem.Cmp(new(big.Rat).Sub(total, used)) != 0 {
		p.found.add(info, r.Line, CodeQuota, "#quota rem is not total - used", "write rem = total - used (§6.2)")
	}
}

func decimalField(r *Record, key string) (*big.Rat, bool) {
	v, ok := r.Get(key)
	if !ok || !isDecimal(v.Text) {
		return nil, false
	}
	return new(big.Rat).SetString(v.Text)
}
