package server

import (
	"fmt"
	"strconv"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// intentOptions are the limits an intent is parsed under. The body limit
// already bounds its size, and a larger --max-body must not leave intents
// refused by a smaller default of aql; the event rate is the server's.
func (c *Config) intentOptions() *aql.Options {
	return &aql.Options{MaxBytes: int(c.MaxBodyBytes), MaxEventRate: c.MaxEventsPerMinute}
}

// pageSizeProblem refuses a ?page_size= that is not a whole number from 1
// to max, naming the limit and the flag that sets it.
func pageSizeProblem(got string, max int) problem {
	if len(got) > 32 { // a query string is the client's: do not echo a flood
		got = got[:32] + "..."
	}
	p := badRequest("bad_parameter", fmt.Sprintf(
		"page_size must be a whole number from 1 to %d, the limit of this server (--max-page-size %d), not %s",
		max, max, strconv.Quote(got)))
	p.extra = map[string]any{"parameter": "page_size", "limit": canon.Number(strconv.Itoa(max))}
	return p
}
