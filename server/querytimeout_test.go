package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/query/aql"
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

// TestQueryStopsWhenClientLeaves: a query whose client goes away is
// stopped, even in the middle of a document whose regex leaves would
// hold it for fifteen seconds, gives its slot back, and is logged.
func TestQueryStopsWhenClientLeaves(t *testing.T) {
	var logged lockedBuffer
	ts := startServer(t, func(c *Config) {
		c.QueryTimeout = time.Minute
		c.Logger = slog.New(slog.NewJSONHandler(&logged, nil))
	})
	ts.putPublic(slowRegexDoc)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	ts.srv.queryHook = func(*aql.Intent) { close(started) }
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.url+pathIntent, bytes.NewReader(slowRegexIntent(150)))
		req.Header.Set("Content-Type", contentOAP)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-started
	time.Sleep(200 * time.Millisecond) // into the document's regexes
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the request was answered before the client left")
	}
	ts.waitQueries(0) // within 10 s; without stopping, 150 leaves × 100 ms
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logged.String(), `"status":499`) {
		t.Fatalf("the stopped query was not logged as 499:\n%s", logged.String())
	}
}
