package sign

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

// Resolver finds the Ed25519 public key of a DID (or DID URL). ok is false
// when the DID has no key the resolver knows. Implementations must be
// safe for concurrent use.
type Resolver interface {
	Resolve(did string) (pub ed25519.PublicKey, ok bool)
}

// KeyResolver resolves a did:key from the identifier itself, offline, and
// any other DID through Trust. The zero value, and a nil *KeyResolver,
// resolve did:key only. KeyResolver is safe for concurrent use as long as
// Trust is not changed.
type KeyResolver struct {
	// Trust maps DIDs without fragment (e.g. "did:web:agent.example") to
	// their keys.
	Trust map[string]ed25519.PublicKey
}

// Resolve returns the key of did. A DID URL (did#fragment) resolves to the
// key of its DID. A did:key always resolves to the key it encodes, whatever
// Trust says.
func (r *KeyResolver) Resolve(did string) (ed25519.PublicKey, bool) {
	id, _, _ := strings.Cut(did, "#")
	if strings.HasPrefix(id, didKeyPrefix) {
		pub, err := ParseDIDKey(id)
		return pub, err == nil
	}
	if r == nil {
		return nil, false
	}
	pub, ok := r.Trust[id]
	return pub, ok
}

// didPattern is the DID syntax of the OAP schemas' issuer_did.
var didPattern = regexp.MustCompile(`^did:[a-z0-9]+:.+$`)

// LoadTrustFile reads a trust file, a JSON object mapping each DID to its
// Ed25519 public key, written as a did:key or as the 32 raw bytes in
// base64url without padding:
//
//	{"did:web:agent.example": "did:key:z6Mk…",
//	 "did:web:shop.example":  "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}
//
// Errors wrap ErrTrustFile and name the file and the entry at fault.
func LoadTrustFile(path string) (*KeyResolver, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sign: trust file: %w", err)
	}
	v, err := canon.Decode(b, nil)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrTrustFile, path, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`%w %s: the top level is %s; want an object {"did:web:…": "did:key:z…", …}`,
			ErrTrustFile, path, canon.TypeName(v))
	}
	return trustEntries(path, m)
}

// trustEntries parses every entry, in sorted order so that the first error
// reported is always the same one.
func trustEntries(path string, m map[string]any) (*KeyResolver, error) {
	r := &KeyResolver{Trust: make(map[string]ed25519.PublicKey, len(m))}
	for _, did := range canon.SortedKeys(m) {
		pub, reason := trustEntry(did, m[did])
		if reason != "" {
			return nil, fmt.Errorf("%w %s: entry %s: %s", ErrTrustFile, path, quoteShort(did), reason)
		}
		r.Trust[did] = pub
	}
	return r, nil
}

// trustEntry checks one entry; it returns the key or what is wrong.
func trustEntry(did string, v any) (ed25519.PublicKey, string) {
	if !didPattern.MatchString(did) {
		return nil, "not a DID; want did:<method>:<id>, e.g. did:web:agent.example"
	}
	if strings.Contains(did, "#") {
		return nil, "has a #fragment; name the DID itself, every key id of it resolves"
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Sprintf("the key is %s; want a did:key or a base64url Ed25519 key", canon.TypeName(v))
	}
	pub, reason := trustKey(s)
	if reason == "" && strings.HasPrefix(did, didKeyPrefix) && DIDKey(pub) != did {
		reason = "a did:key resolves to the key it encodes; this entry names another key (remove the entry)"
	}
	return pub, reason
}

// trustKey reads a key written as a did:key or as base64url raw bytes.
func trustKey(s string) (ed25519.PublicKey, string) {
	if strings.HasPrefix(s, didKeyPrefix) {
		pub, err := ParseDIDKey(s)
		if err != nil {
			return nil, err.Error()
		}
		return pub, ""
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, "the key is neither a did:key nor base64url without padding"
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Sprintf("the key decodes to %d bytes; an Ed25519 public key is %d", len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), ""
}
