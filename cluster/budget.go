package cluster

import (
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/cockroachdb/apd/v3"
)

// allot walks the merged candidates in rank order with remaining =
// amount − the costs already allotted, as a store's resolution does
// (package query, budget.go), and returns for each candidate why it is
// over budget, "" when it is not. Each shard allotted its own budget; the
// node allots the cluster's, over every shard's candidates.
func allot(b *aql.Budget, costs []*canon.Cost) []string {
	why := make([]string, len(costs))
	if b == nil {
		return why
	}
	remaining := new(apd.Decimal).Set(b.Amount)
	for i, c := range costs {
		if c != nil {
			why[i] = overBudget(b, c, remaining)
		}
	}
	return why
}

func overBudget(b *aql.Budget, c *canon.Cost, remaining *apd.Decimal) string {
	if c.Currency != "" && c.Currency != b.Currency {
		return fmt.Sprintf("cost currency %s does not match budget currency %s", c.Currency, b.Currency)
	}
	cost, ok := aql.ParseDecimal(c.Amount)
	if !ok {
		return fmt.Sprintf("cost %q is not a decimal", c.Amount)
	}
	if cost.Cmp(remaining) > 0 {
		return fmt.Sprintf("cost %s %s exceeds the remaining budget %s %s", c.Amount, b.Currency, remaining.Text('f'), b.Currency)
	}
	_, _ = apd.BaseContext.Sub(remaining, remaining, cost)
	return ""
}
