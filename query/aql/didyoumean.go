package aql

import (
	"strings"

	"github.com/aqlstore/aqlstore/canon/spell"
)

// operatorAliases are the names other query languages give AQL's
// operators; they are further from the AQL name than a typo ("equals" is
// four edits from "eq").
var operatorAliases = map[string]string{
	"equals": "eq", "equal": "eq", "is": "eq", "=": "eq", "==": "eq", "===": "eq",
	"not_equals": "ne", "not_equal": "ne", "neq": "ne", "!=": "ne", "<>": "ne", "!==": "ne",
	"less_than": "lt", "<": "lt",
	"le": "lte", "less_than_or_equal": "lte", "<=": "lte", "max": "lte",
	"greater_than": "gt", ">": "gt",
	"ge": "gte", "greater_than_or_equal": "gte", ">=": "gte", "min": "gte",
	"nin": "not_in", "not in": "not_in", "notin": "not_in",
	"includes": "contains", "has": "contains", "like": "matches", "regex": "matches",
	"between": "within", "has_field": "exists", "present": "exists",
}

// didYouMean returns `; did you mean "x"?` for the name nearest to s, or ""
// when none is near: aliases first, then edit distance over names
// (case-insensitively).
func didYouMean(s string, aliases map[string]string, names []string) string {
	low := strings.ToLower(strings.TrimSpace(s))
	if a, ok := aliases[low]; ok {
		return `; did you mean "` + a + `"?`
	}
	if len(low) > 64 { // a name is short: a long string is not a typo of one
		return ""
	}
	for _, n := range names {
		if n == low { // only the case was wrong
			return `; did you mean "` + n + `"?`
		}
	}
	near := spell.Nearest(low, names, 1)
	if len(near) == 0 {
		return ""
	}
	return `; did you mean "` + near[0] + `"?`
}
