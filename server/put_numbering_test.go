package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestPutNumbersDocumentsFromOne: an NDJSON put names a bad document by
// its number from 1, as the CLI does (and as its rounding warnings do).
func TestPutNumbersDocumentsFromOne(t *testing.T) {
	ts := startServer(t, nil)
	for _, c := range []struct {
		body   string
		status int
		want   string
	}{
		{"{\"node_id\":\"n-1\"}\n{\"node_id\":\"n-2\"}\n{\"node_id\":\"n-3\",\"w\":1.0.0}\n", http.StatusBadRequest, "document 3 "},
		{"{\"node_id\":\"n-1\",\"w\":[}\n{\"node_id\":\"n-2\"}\n", http.StatusBadRequest, "document 1 "},
		{"{\"node_id\":\"c-1\",\"v\":1}\n{\"node_id\":\"c-1\",\"v\":2}\n", http.StatusConflict, "document 2 "},
	} {
		status, _, body := ts.do("POST", "/storage/documents", "application/x-ndjson", tokenB, []byte(c.body))
		detail, _ := decode(t, body)["detail"].(string)
		if status != c.status || !strings.Contains(detail, c.want) {
			t.Errorf("put %q: %d %q, want %d naming %q", c.body, status, detail, c.status, strings.TrimSpace(c.want))
		}
		// The document is named once, and no library package prefix
		// reaches the caller.
		if strings.Contains(detail, ": document ") || strings.Contains(detail, "canon:") || strings.Contains(detail, "store:") {
			t.Errorf("put %q: detail %q names the document more than once or carries a package prefix", c.body, detail)
		}
	}
}
