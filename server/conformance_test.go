package server

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

const testReceipt = `{"receipt_id": "urn:oap:conformance:probe", "type": "conformance",
  "claimed_levels": ["L1"], "signatures": [{"by": "did:key:z6Mk", "alg": "EdDSA", "value": "v"}]}`

// TestConformanceReceipt: a configured receipt is served verbatim at
// /oap-conformance-receipt.json; without one the answer is a 404 saying
// how to get one; a file that is not a receipt is refused with the
// pointer of what is wrong.
func TestConformanceReceipt(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "receipt.json")
	if err := writeTestFile(good, testReceipt+"\n"); err != nil {
		t.Fatal(err)
	}
	b, err := LoadConformanceReceipt(good)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *Config) { c.ConformanceReceipt = b })
	status, _, body := ts.do("GET", pathConformance, "", "", nil)
	if status != 200 || !bytes.Equal(bytes.TrimSpace(body), []byte(testReceipt)) {
		t.Fatalf("receipt: %d %s", status, body)
	}
	ts = startServer(t, nil)
	status, _, body = ts.do("GET", pathConformance, "", "", nil)
	if status != 404 || !bytes.Contains(body, []byte("--conformance-receipt")) {
		t.Fatalf("no receipt: %d %s", status, body)
	}
	for _, c := range []struct{ text, want string }{
		{`[]`, "at /: want a JSON object"},
		{strings.Replace(testReceipt, `"conformance"`, `"invocation"`, 1), "at /type"},
		{strings.Replace(testReceipt, `urn:oap:conformance:probe`, `probe`, 1), "at /receipt_id"},
		{strings.Replace(testReceipt, `["L1"]`, `[]`, 1), "at /claimed_levels"},
		{strings.Replace(testReceipt, `"signatures"`, `"sigs"`, 1), "at /signatures"},
	} {
		bad := filepath.Join(dir, "bad.json")
		if err := writeTestFile(bad, c.text); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConformanceReceipt(bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error with %q", c.text, err, c.want)
		}
	}
}
