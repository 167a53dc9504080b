package server

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"sync"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

// maxInvocationReceipts is how many invocation receipts the server keeps
// per tenant; older ones drop off the front of the chain.
const maxInvocationReceipts = 1000

// invocationLog keeps the receipts of POST /oap/invoke (OAP-CORE §11),
// one hash chain per tenant, in memory: they describe calls, not stored
// documents, and end with the process. The store's own receipts of
// mutations are in the tenant's export. Safe for concurrent use.
type invocationLog struct {
	mu     sync.Mutex
	chains map[string]*receiptChain // by store principal (store.Public for anonymous callers)
}

// receiptChain is one tenant's receipts, oldest first.
type receiptChain struct {
	receipts []map[string]any
	lastHash string    // "sha256:…" of the last receipt, "genesis" before the first
	lastAt   time.Time // receipts are stamped in order, never backwards
}

func newInvocationLog() *invocationLog {
	return &invocationLog{chains: make(map[string]*receiptChain)}
}

// invocation is what a receipt records of one call.
type invocation struct {
	principal, agent string // as the request envelope asserts them
	action, version  string
	input, output    any
}

// append stamps, chains and signs a receipt of inv for tenant and
// returns it. The hash of a receipt, which the next one names, and its
// signature are both over its RFC 8785 form without "signatures".
func (l *invocationLog) append(s *Server, tenant string, inv invocation) map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.chains[tenant]
	if c == nil {
		c = &receiptChain{lastHash: "genesis"}
		l.chains[tenant] = c
	}
	at := s.cfg.Now().UTC()
	if at.Before(c.lastAt) {
		at = c.lastAt
	}
	rec := map[string]any{
		"receipt_id": "urn:oap:receipt:" + randomID(), "type": "invocation",
		"timestamp": at.Format(time.RFC3339Nano), "principal_did": inv.principal, "agent_did": inv.agent,
		"tool_did": s.DIDWeb(), "action_id": inv.action, "action_version": inv.version,
		"input_hash": digest(inv.input), "output_hash": digest(inv.output),
		"previous_receipt_hash": c.lastHash,
	}
	body := canon.AppendValue(nil, rec)
	sig := s.cfg.Signer.SignMessage(body)
	rec["signatures"] = []any{map[string]any{"by": s.cfg.Signer.KeyID(), "alg": "EdDSA",
		"value": base64.RawURLEncoding.EncodeToString(sig)}}
	sum := sha256.Sum256(body)
	c.lastHash, c.lastAt = "sha256:"+hex.EncodeToString(sum[:]), at
	if len(c.receipts) == maxInvocationReceipts {
		// The next append that outgrows the array copies the kept ones
		// to a new one, so what dropped off is freed then.
		c.receipts = c.receipts[1:]
	}
	c.receipts = append(c.receipts, rec)
	return rec
}

// list returns tenant's last limit receipts, oldest first, those of
// principal only when principal is not "".
func (l *invocationLog) list(tenant, principal string, limit int) []any {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.chains[tenant]
	if c == nil {
		return []any{}
	}
	out := make([]any, 0, min(limit, len(c.receipts)))
	for i := len(c.receipts) - 1; i >= 0 && len(out) < limit; i-- {
		if rec := c.receipts[i]; principal == "" || rec["principal_did"] == principal {
			out = append(out, rec)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// digest is "sha256:" and the hex SHA-256 of v's RFC 8785 form.
func digest(v any) string {
	sum := sha256.Sum256(canon.AppendValue(nil, v))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// randomID is 128 random bits in hex.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
