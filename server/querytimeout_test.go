package server

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

// slowRegexIntent is an intent whose any_of holds n leaves, each a regex
// that backtracks until its MatchTimeout on slowRegexDoc's text.
func slowRegexIntent(n int) []byte {
	leaves := make([]string, n)
	for i := range leaves {
		leaves[i] = `{"path": "/text", "operator": "matches", "value": "^(a+)+$"}`
	}
	return intent("discovery", `{"any_of": [`+strings.Join(leaves, ",")+`]}`, "")
}

const slowRegexDoc = `{"probe": "slow-regex", "text": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}`

// TestQueryTimeoutCountsRegexTime: regex time counts against the query's
// own timeout. Forty leaves that each run their 100 ms MatchTimeout on
// one document would hold a query for four seconds past a 300 ms
// timeout; the query is answered query_timeout instead, once its
// deadline has passed, and the request is logged.
func TestQueryTimeoutCountsRegexTime(t *testing.T) {
	var logged lockedBuffer
	ts := startServer(t, func(c *Config) {
		c.QueryTimeout = 300 * time.Millisecond
		c.Logger = slog.New(slog.NewJSONHandler(&logged, nil))
	})
	ts.putPublic(slowRegexDoc)
	status, h, body := ts.sendBody("POST", "/oap/intent", contentOAP, "", slowRegexIntent(40), false)
	ts.checkProblem(status, h, body, 503, "query_timeout")
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logged.String(), `"route":"intent"`) || !strings.Contains(logged.String(), `"status":503`) {
		t.Fatalf("the timed-out query was not logged:\n%s", logged.String())
	}
}
