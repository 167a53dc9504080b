package execintent

import (
	"errors"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// badCase is an intent built from the sealed sample by edits (or given
// raw) and the first problem Parse must report. schemaRejects records
// whether ExecutionIntent.v1.schema.json rejects it too: the rules beyond
// the schema are the cases where it does not.
type badCase struct {
	name          string
	raw           string
	edits         map[string]any
	reseal        bool // recompute intentHash after the edits
	err           error
	ptr           string
	n             int // problems, 0 meaning 1
	schemaRejects bool
}

var rf, rp, sb, pb = "/requestFingerprint/", "/riskProfile/", "/spendBounds/", "/policyBinding/"

func num(s string) canon.Number { return canon.Number(s) }

var badCases = []badCase{
	{name: "not JSON", raw: `{"intentId": `, err: ErrSyntax, ptr: "/intentId", schemaRejects: true},
	{name: "duplicate member", raw: `{"intentId":"a","intentId":"b"}`, err: canon.ErrDuplicateName, ptr: "/intentId", schemaRejects: true},
	{name: "not an object", raw: `[]`, err: ErrSchema, ptr: "", schemaRejects: true},
	{name: "intentId missing", edits: map[string]any{"/intentId": deleted}, err: ErrSchema, ptr: "/intentId", schemaRejects: true},
	{name: "unknown member", edits: map[string]any{"/extra": true}, err: ErrSchema, ptr: "/extra", schemaRejects: true},
	{name: "schemaVersion other", edits: map[string]any{"/schemaVersion": "ExecutionIntent.v2"}, err: ErrSchema, ptr: "/schemaVersion", schemaRejects: true},
	{name: "intentId empty", edits: map[string]any{"/intentId": ""}, err: ErrSchema, ptr: "/intentId", schemaRejects: true},
	{name: "intentId 201 characters", edits: map[string]any{"/intentId": strings.Repeat("é", 201)}, err: ErrSchema, ptr: "/intentId", schemaRejects: true},
	{name: "agentId a number", edits: map[string]any{"/agentId": num("7")}, err: ErrSchema, ptr: "/agentId", schemaRejects: true},
	{name: "runId too long", edits: map[string]any{"/runId": strings.Repeat("r", 201)}, err: ErrSchema, ptr: "/runId", schemaRejects: true},
	{name: "agreementHash uppercase", edits: map[string]any{"/agreementHash": strings.ToUpper(hexA)}, err: ErrSchema, ptr: "/agreementHash", schemaRejects: true},
	{name: "canonicalization other", edits: map[string]any{rf + "canonicalization": "jcs"}, err: ErrSchema, ptr: rf + "canonicalization", schemaRejects: true},
	{name: "method 17 characters", edits: map[string]any{rf + "method": strings.Repeat("P", 17)}, err: ErrSchema, ptr: rf + "method", schemaRejects: true},
	{name: "bodySha256 63 digits", edits: map[string]any{rf + "bodySha256": hexA[1:]}, err: ErrSchema, ptr: rf + "bodySha256", schemaRejects: true},
	{name: "querySha256 with newline", edits: map[string]any{rf + "querySha256": hexA + "\n"}, err: ErrSchema, ptr: rf + "querySha256", schemaRejects: true},
	{name: "requestFingerprint unknown member", edits: map[string]any{rf + "host": "x"}, err: ErrSchema, ptr: rf + "host", schemaRejects: true},
	{name: "requestFingerprint path missing", edits: map[string]any{rf + "path": deleted}, err: ErrSchema, ptr: rf + "path", schemaRejects: true},
	{name: "riskProfile not an object", edits: map[string]any{"/riskProfile": "high"}, err: ErrSchema, ptr: "/riskProfile", schemaRejects: true},
	{name: "riskClass outside the enum", edits: map[string]any{rp + "riskClass": "write"}, err: ErrSchema, ptr: rp + "riskClass", schemaRejects: true},
	{name: "sideEffecting a string", edits: map[string]any{rp + "sideEffecting": "true"}, err: ErrSchema, ptr: rp + "sideEffecting", schemaRejects: true},
	{name: "maxLossCents negative", edits: map[string]any{rp + "maxLossCents": num("-1")}, err: ErrSchema, ptr: rp + "maxLossCents", schemaRejects: true},
	{name: "maxLossCents a fraction", edits: map[string]any{rp + "maxLossCents": num("1.5")}, err: ErrSchema, ptr: rp + "maxLossCents", schemaRejects: true},
	{name: "maxLossCents a tiny fraction", edits: map[string]any{rp + "maxLossCents": num("1.0000000000000000001")}, err: ErrSchema, ptr: rp + "maxLossCents", schemaRejects: true},
	{name: "currency too short", edits: map[string]any{sb + "currency": "US"}, err: ErrSchema, ptr: sb + "currency", schemaRejects: true},
	{name: "maxAmountCents a string", edits: map[string]any{sb + "maxAmountCents": "100.00"}, err: ErrSchema, ptr: sb + "maxAmountCents", schemaRejects: true},
	{name: "policyVersion zero", edits: map[string]any{pb + "policyVersion": num("0")}, err: ErrSchema, ptr: pb + "policyVersion", schemaRejects: true},
	{name: "policyHash missing", edits: map[string]any{pb + "policyHash": deleted}, err: ErrSchema, ptr: pb + "policyHash", schemaRejects: true},
	{name: "nonce 7 characters", edits: map[string]any{"/nonce": "1234567"}, err: ErrSchema, ptr: "/nonce", schemaRejects: true},
	{name: "expiresAt with a space", edits: map[string]any{"/expiresAt": "2026-04-05 12:10:00Z"}, err: ErrSchema, ptr: "/expiresAt", schemaRejects: true},
	{name: "createdAt a date", edits: map[string]any{"/createdAt": "2026-04-05"}, err: ErrSchema, ptr: "/createdAt", schemaRejects: true},
	{name: "createdAt hour 24", edits: map[string]any{"/createdAt": "2026-04-05T24:00:00Z"}, err: ErrSchema, ptr: "/createdAt", schemaRejects: true},
	{name: "metadata an array", edits: map[string]any{"/metadata": []any{}}, err: ErrSchema, ptr: "/metadata", schemaRejects: true},
	{name: "intentHash not hex", edits: map[string]any{"/intentHash": "sha256:" + hexA}, err: ErrSchema, ptr: "/intentHash", schemaRejects: true},
	{name: "intentHash missing", edits: map[string]any{"/intentHash": deleted}, err: ErrSchema, ptr: "/intentHash", schemaRejects: true},
	{name: "several schema problems", edits: map[string]any{"/tenantId": deleted, "/zzz": num("1"), rp + "riskClass": "x"},
		err: ErrSchema, ptr: "/tenantId", n: 3, schemaRejects: true},

	// Beyond the schema.
	{name: "tenantId holds NUL", edits: map[string]any{"/tenantId": "acme\x00x"}, reseal: true, err: ErrInvalid, ptr: "/tenantId"},
	{name: "idempotencyKey holds NUL", edits: map[string]any{"/idempotencyKey": "\x00"}, reseal: true, err: ErrInvalid, ptr: "/idempotencyKey"},
	{name: "maxAmountCents beyond 2^53", edits: map[string]any{sb + "maxAmountCents": num("9007199254740993")}, reseal: true, err: ErrInvalid, ptr: sb + "maxAmountCents"},
	{name: "maxLossCents beyond the double range", edits: map[string]any{rp + "maxLossCents": num("1e400")}, err: ErrInvalid, ptr: rp + "maxLossCents"},
	{name: "metadata number beyond the double range", edits: map[string]any{"/metadata/big": num("1e400")}, err: ErrInvalid, ptr: "/metadata/big"},
	{name: "intentHash of another intent", edits: map[string]any{"/intentHash": hexA}, err: ErrHashMismatch, ptr: "/intentHash"},
	{name: "edited after sealing", edits: map[string]any{sb + "maxAmountCents": num("500000")}, err: ErrHashMismatch, ptr: "/intentHash"},
	{name: "expiresAt before createdAt", edits: map[string]any{"/expiresAt": "2026-04-05T11:59:59Z"}, reseal: true, err: ErrExpiry, ptr: "/expiresAt"},
	{name: "expiresAt before createdAt across offsets", edits: map[string]any{"/expiresAt": "2026-04-05T13:30:00+02:00"}, reseal: true, err: ErrExpiry, ptr: "/expiresAt"},
	{name: "hash and expiry both wrong", edits: map[string]any{"/expiresAt": "2026-04-05T11:00:00Z"}, err: ErrHashMismatch, ptr: "/intentHash", n: 2},
}

func (tc badCase) bytes(t *testing.T) []byte {
	if tc.raw != "" {
		return []byte(tc.raw)
	}
	doc := sealed(t)
	for ptr, v := range tc.edits {
		edit(t, doc, ptr, v)
	}
	if tc.reseal {
		h, err := Hash(doc)
		if err != nil {
			t.Fatal(err)
		}
		doc["intentHash"] = h
	}
	return encode(doc)
}

// TestBadDocuments: each bad intent is rejected with the right sentinel
// and pointer.
func TestBadDocuments(t *testing.T) {
	for _, tc := range badCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.bytes(t), nil)
			var l ErrorList
			if !errors.As(err, &l) || len(l) == 0 {
				t.Fatalf("Parse = %v, want an ErrorList", err)
			}
			if !errors.Is(l[0], tc.err) || l[0].Pointer != tc.ptr {
				t.Errorf("got %v\nwant %v at %q", err, tc.err, tc.ptr)
			}
			if n := max(tc.n, 1); len(l) != n {
				t.Errorf("%d problems, want %d: %v", len(l), n, err)
			}
		})
	}
}

// TestEqualTimesAccepted: expiresAt == createdAt is not "before".
func TestEqualTimesAccepted(t *testing.T) {
	doc := sample()
	doc["expiresAt"] = doc["createdAt"]
	if _, err := Seal(doc); err != nil {
		t.Fatal(err)
	}
}
