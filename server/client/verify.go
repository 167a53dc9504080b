package client

import (
	"context"
	"crypto/ed25519"
	"fmt"

	"github.com/aqlstore/aqlstore/query/sign"
)

// ServerKey fetches /.well-known/did.json and returns the Ed25519 key of
// its first verification method (publicKeyMultibase, the did:key form).
func (c *Client) ServerKey(ctx context.Context) (ed25519.PublicKey, error) {
	doc, err := c.DIDDocument(ctx)
	if err != nil {
		return nil, err
	}
	return KeyFromDIDDocument(doc)
}

// KeyFromDIDDocument reads the key of a DID document's first
// verification method.
func KeyFromDIDDocument(doc map[string]any) (ed25519.PublicKey, error) {
	methods, _ := doc["verificationMethod"].([]any)
	if len(methods) == 0 {
		return nil, fmt.Errorf("aqlstore client: the DID document has no verificationMethod")
	}
	m, _ := methods[0].(map[string]any)
	mb, _ := m["publicKeyMultibase"].(string)
	pub, err := sign.ParseDIDKey("did:key:" + mb)
	if err != nil {
		return nil, fmt.Errorf("aqlstore client: verificationMethod/0/publicKeyMultibase: %w", err)
	}
	return pub, nil
}

// Verify checks that body, a JSON document the server signed, verifies
// under pub (RFC 8785 bytes without the signature member, Ed25519).
func Verify(body []byte, pub ed25519.PublicKey) error { return sign.VerifyBytes(body, pub) }
