package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/execintent"
)

// sealedIntent returns a valid ExecutionIntent.v1, pretty-printed so that
// problems have distinct lines.
func sealedIntent(t *testing.T) (string, string) {
	t.Helper()
	hexA, hexB := strings.Repeat("a", 64), strings.Repeat("0123456789abcdef", 4)
	doc, err := execintent.Seal(map[string]any{
		"schemaVersion": "ExecutionIntent.v1", "intentId": "int_cli", "tenantId": "tenant_acme", "agentId": "agt_planner",
		"requestFingerprint": map[string]any{"canonicalization": "rfc8785-jcs", "method": "POST", "path": "/v1/payments",
			"querySha256": hexB, "bodySha256": hexA, "requestSha256": hexB},
		"riskProfile": map[string]any{"riskClass": "financial", "sideEffecting": true, "expectedDeterminism": "deterministic",
			"maxLossCents": 5000, "requiresHumanApproval": false},
		"spendBounds":    map[string]any{"currency": "USD", "maxAmountCents": 5000},
		"policyBinding":  map[string]any{"policyId": "pol", "policyVersion": 3, "policyHash": hexA, "verificationMethodHash": hexB},
		"idempotencyKey": "idem_1", "nonce": "nonce-0001",
		"createdAt": "2026-04-05T12:00:00Z", "expiresAt": "2026-04-05T12:10:00Z",
	})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, canon.AppendValue(nil, doc), "", "  "); err != nil {
		t.Fatal(err)
	}
	return b.String() + "\n", doc["intentHash"].(string)
}

func TestExecIntentValidate(t *testing.T) {
	doc, hash := sealedIntent(t)
	code, out, _ := run(t, t.TempDir(), doc, "execintent", "validate", "-")
	if code != 0 || out != "stdin: valid ExecutionIntent.v1 (intentId int_cli, intentHash "+hash+")\n" {
		t.Fatalf("valid: %d %q", code, out)
	}
	// One changed field: the hash no longer matches, and both are shown.
	changed := strings.Replace(doc, `"maxAmountCents": 5000`, `"maxAmountCents": 5001`, 1)
	line := 1 + strings.Count(changed[:strings.Index(changed, `"intentHash"`)], "\n")
	code, out, errs := run(t, t.TempDir(), changed, "execintent", "validate", "-")
	if code != 1 || !strings.HasPrefix(out, "stdin:"+strconv.Itoa(line)+": HASH_MISMATCH at /intentHash: intentHash is "+hash+" but the intent hashes to ") ||
		!strings.Contains(out, "\tfix: reseal") || !strings.Contains(errs, "invalid ExecutionIntent.v1: HASH_MISMATCH, 1 problem(s)") {
		t.Fatalf("changed: %d %q %q", code, out, errs)
	}
	// Schema problems, each at its own line.
	bad := strings.Replace(doc, `"riskClass": "financial"`, `"riskClass": "write"`, 1)
	line = 1 + strings.Count(bad[:strings.Index(bad, `"riskClass"`)], "\n")
	code, out, _ = run(t, t.TempDir(), bad, "--json", "execintent", "validate", "-")
	var r struct {
		Valid    bool
		Problems []struct {
			Line          int
			Code, Pointer string
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 || r.Valid || len(r.Problems) != 1 ||
		r.Problems[0].Code != "SCHEMA" || r.Problems[0].Pointer != "/riskProfile/riskClass" || r.Problems[0].Line != line {
		t.Fatalf("schema: %d %s %v", code, out, err)
	}
}
