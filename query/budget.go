package query

import (
	"fmt"

	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/cockroachdb/apd/v3"
)

// allocate walks the ranked candidates with remaining = amount − the costs
// already allotted; a candidate costing more than remains is flagged
// over_budget and still returned (RFC 0020 §3.4: never silently dropped).
// A cost in another currency cannot be allotted: it is flagged too, with
// the reason. A candidate without a cost allots nothing.
func allocate(b *aql.Budget, cs []*Candidate) {
	if b == nil {
		return
	}
	remaining := new(apd.Decimal).Set(b.Amount)
	for _, c := range cs {
		if c.cost == nil {
			continue
		}
		if why := overBudget(b, c, remaining); why != "" {
			c.OverBudget = true
			c.Record.Outcome, c.Record.Explanation = "over_budget", why
		}
	}
}

// overBudget allots c's cost from remaining, or says why it cannot.
func overBudget(b *aql.Budget, c *Candidate, remaining *apd.Decimal) string {
	if c.cost.Currency != "" && c.cost.Currency != b.Currency {
		return fmt.Sprintf("cost currency %s does not match budget currency %s", c.cost.Currency, b.Currency)
	}
	cost, ok := aql.ParseDecimal(c.cost.Amount)
	if !ok {
		return fmt.Sprintf("cost %q is not a decimal", c.cost.Amount)
	}
	if cost.Cmp(remaining) > 0 {
		return fmt.Sprintf("cost %s %s exceeds the remaining budget %s %s", c.cost.Amount, b.Currency, remaining.Text('f'), b.Currency)
	}
	_, _ = apd.BaseContext.Sub(remaining, remaining, cost)
	return ""
}
