package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compactFixture reads an AIDP message of canon/aidp's testdata as one
// line, with its envelope_id replaced.
func compactFixture(t *testing.T, name, envelopeID string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "canon", "aidp", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["payload"].(map[string]any)["envelope_id"] = envelopeID
	out, _ := json.Marshal(m)
	return string(out)
}

func TestPutMessagesThreadTrace(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	in := filepath.Join(tmp, "in")
	ie := compactFixture(t, "ie-19.1.json", "env-cli")
	ob := compactFixture(t, "ob-19.2.json", "env-cli")
	// The observation follows its envelope in the same input: the check
	// before storing sees the envelope.
	writeFile(t, in, "aidp.ndjson", ie+"\n"+ob+"\n")
	writeFile(t, in, "thread/1.pairl", "@v 1\n@mid ref:msg:r1\n@ts 2026-01-31T10:00:00Z\n@budget 0.50USD\n\nreq{t=research} @rid=a1\n")
	writeFile(t, in, "thread/2.pairl", "@v 1\n@mid ref:msg:r2\n@ts 2026-01-31T10:00:05Z\n@parent ref:msg:r1\n\nbid{t=research} @rid=a1\n#cost val=0.35 cur=USD @rid=c1\n")
	writeFile(t, in, "thread/3.txt", "@v 1\n@mid ref:msg:r3\n@ts 2026-01-31T10:01:00Z\n@parent ref:msg:r1\n@deps ref:msg:r2\n\nack{t=research} @rid=a1\n")
	writeFile(t, in, "chain.ndjson", `{"intent_id":"aql-cli","issuer_did":"did:key:z","constraints":[]}
{"intent_id":"aql-cli","session_id":"ps-1"}
{"receipt_id":"r-1","type":"settlement","action_id":"aql-cli"}
`)
	run(t, dir, "", "init")
	code, out, errs := run(t, dir, "", "--json", "put", filepath.Join(in, "aidp.ndjson"), filepath.Join(in, "thread"),
		filepath.Join(in, "thread", "3.txt"), filepath.Join(in, "chain.ndjson"))
	if code != 0 || !strings.Contains(errs, "stored 8 documents") {
		t.Fatalf("put: %d\n%s\n%s", code, out, errs)
	}
	for _, kind := range []string{`"aidp-ie"`, `"aidp-ob"`, `"pairl"`, `"intent"`} {
		if !strings.Contains(out, kind) {
			t.Fatalf("put printed no %s: %s", kind, out)
		}
	}
	code, out, errs = run(t, dir, "", "thread", "r2")
	want := "ref:msg:r1  2026-01-31T10:00:00Z  budget 0.50USD  req{}\n" +
		"├── ref:msg:r2 *  2026-01-31T10:00:05Z  bid{}\n" +
		"└── ref:msg:r3  2026-01-31T10:01:00Z  ack{}  deps: ref:msg:r2\n"
	if code != 0 || out != want {
		t.Fatalf("thread: %d %s\n%s", code, errs, out)
	}
	code, out, errs = run(t, dir, "", "trace", "aql-cli")
	if code != 0 || strings.Count(out, "\n") != 3 || !strings.HasPrefix(out, "intent ") || !strings.Contains(out, "payment_session") ||
		!strings.Contains(out, "receipt ") {
		t.Fatalf("trace: %d %s\n%s", code, errs, out)
	}
	if code, _, errs := run(t, dir, "", "trace", "nothing"); code != 1 || !strings.Contains(errs, "no stored document") {
		t.Fatalf("trace of nothing: %d %s", code, errs)
	}
	if code, _, errs := run(t, dir, "", "thread", "nowhere"); code != 1 || !strings.Contains(errs, "not found") {
		t.Fatalf("thread of nothing: %d %s", code, errs)
	}
}

func TestPutMessageErrors(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	run(t, dir, "", "init")
	ie := compactFixture(t, "ie-19.1.json", "env-err")
	if code, _, errs := run(t, dir, ie, "put", "-"); code != 0 {
		t.Fatalf("put IE: %s", errs)
	}
	other := strings.Replace(ie, "invoice-8841", "invoice-9999", 1)
	unbound := compactFixture(t, "ob-19.2.json", "env-none")
	bad := writeFile(t, tmp, "bad.pairl", "@v 1\n@mid ref:msg:b1\n@ts 2026-01-31T10:00:00Z\n@parent msg-without-ref\n\nack{} @rid=a1\n")
	in := writeFile(t, tmp, "in.ndjson", "{\"offer_id\":\"o-ok\"}\n"+other+"\n"+unbound+"\n")
	code, _, errs := run(t, dir, "", "put", in, bad)
	if code != 1 || !strings.Contains(errs, "nothing was stored") {
		t.Fatalf("bad input: %d %s", code, errs)
	}
	for _, want := range []string{
		"in.ndjson:2 (document 2): REPLAY_DETECTED: aidp-ie envelope_id \"env-err\" (at /payload/envelope_id)",
		"in.ndjson:3 (document 3): aidp-ob \"env-none\" at /payload/envelope_id",
		"bad.pairl:1 (document 1): line 4:",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("missing %q in:\n%s", want, errs)
		}
	}
	if code, out, _ := run(t, dir, "", "ls"); code != 0 || strings.Contains(out, "o-ok") {
		t.Fatalf("a rejected input stored something:\n%s", out)
	}
	// With --quarantine the observation is stored, flagged.
	if code, _, errs := run(t, dir, unbound, "put", "--quarantine", "-"); code != 0 {
		t.Fatalf("quarantine: %s", errs)
	}
	if code, _, errs := run(t, dir, "", "put", "--kind", "nope", "-"); code != 2 || !strings.Contains(errs, "aidp-ie") {
		t.Fatalf("unknown kind: %d %s", code, errs)
	}
}
