package server

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/sign"
)

// Auth maps bearer tokens to tenant DIDs, and names the did:keys that may
// sign requests instead (client.SchemeDIDKey). It is immutable after LoadAuth
// or NewAuth and safe for concurrent use. Tokens are kept only as their
// sha256, so a token never sits in memory longer than a request.
type Auth struct {
	tokens           map[[sha256.Size]byte]string // sha256(token) → DID
	publicWriters    []string                     // DIDs that may write public documents
	operators        []string                     // DIDs that may read /metrics
	trustedExporters []string                     // did:keys whose exports import; empty: any that verifies
	didKeys          []string                     // tenants that authenticate by signing with their did:key
}

// minTokenLen is the shortest raw token an auth file may hold.
const minTokenLen = 16

var didPattern = regexp.MustCompile(`^did:[a-z0-9]+:.+$`)

// LoadAuth reads an auth file, a JSON object:
//
//	{
//	  "tokens": {
//	    "a-long-random-token-for-tenant-a": "did:web:tenant-a.example",
//	    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08": "did:web:tenant-b.example"
//	  },
//	  "public_writers": ["did:web:tenant-a.example"],
//	  "operators": ["did:web:tenant-a.example"],
//	  "trusted_exporters": ["did:key:z6Mk…"],
//	  "did_keys": ["did:key:z6Mk…"]
//	}
//
// A token is written as itself (at least 16 characters) or as
// "sha256:" and the lowercase hex sha256 of it. public_writers may put
// and delete public documents; operators may read /metrics;
// trusted_exporters, when given, are the only resolver keys whose exports
// POST /storage/import accepts; did_keys are tenants that authenticate by
// signing each request with their did:key (as may a token's tenant that
// is a did:key). Errors wrap ErrAuthFile and name the entry.
func LoadAuth(path string) (*Auth, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("server: auth file: %w", err)
	}
	v, err := canon.Decode(b, nil)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrAuthFile, path, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`%w %s: want an object {"tokens": {…}}`, ErrAuthFile, path)
	}
	a, err := authFrom(m)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrAuthFile, path, err)
	}
	return a, nil
}

// NewAuth returns an Auth for tokens (raw token → tenant DID), as LoadAuth
// would for a file holding just those tokens.
func NewAuth(tokens map[string]string) (*Auth, error) {
	m := map[string]any{}
	for k, v := range tokens {
		m[k] = v
	}
	a, err := authFrom(map[string]any{"tokens": m})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAuthFile, err)
	}
	return a, nil
}

func authFrom(m map[string]any) (*Auth, error) {
	for k := range m {
		switch k {
		case "tokens", "public_writers", "operators", "trusted_exporters", "did_keys":
		default:
			return nil, fmt.Errorf("unknown member %q (want tokens, public_writers, operators, trusted_exporters, did_keys)", k)
		}
	}
	a := &Auth{tokens: map[[sha256.Size]byte]string{}}
	tokens, ok := m["tokens"].(map[string]any)
	if _, given := m["tokens"]; !given && m["did_keys"] != nil {
		tokens, ok = map[string]any{}, true // signed requests only
	}
	if !ok {
		return nil, fmt.Errorf(`"tokens" must be an object mapping tokens to DIDs`)
	}
	for _, tok := range canon.SortedKeys(tokens) {
		if err := a.addToken(tok, tokens[tok]); err != nil {
			return nil, err
		}
	}
	var err error
	if a.publicWriters, err = didList(m, "public_writers"); err != nil {
		return nil, err
	}
	if a.operators, err = didList(m, "operators"); err != nil {
		return nil, err
	}
	if a.trustedExporters, err = didList(m, "trusted_exporters"); err != nil {
		return nil, err
	}
	if a.didKeys, err = didList(m, "did_keys"); err != nil {
		return nil, err
	}
	for i, did := range a.didKeys {
		if _, err := sign.ParseDIDKey(did); err != nil {
			return nil, fmt.Errorf("did_keys/%d: %v", i, err)
		}
	}
	return a, nil
}

// addToken adds one tokens entry.
func (a *Auth) addToken(tok string, v any) error {
	did, ok := v.(string)
	if !ok || !didPattern.MatchString(did) {
		return fmt.Errorf("token %s: the tenant must be a DID like did:web:tenant.example", redact(tok))
	}
	sum, err := tokenHash(tok)
	if err != nil {
		return err
	}
	a.tokens[sum] = did
	return nil
}

// tokenHash reads a tokens key: a raw token or sha256:<hex>.
func tokenHash(tok string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	if h, ok := strings.CutPrefix(tok, "sha256:"); ok {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != sha256.Size || strings.ToLower(h) != h {
			return sum, fmt.Errorf("token %s: want sha256: and 64 lowercase hex digits", redact(tok))
		}
		copy(sum[:], b)
		return sum, nil
	}
	if len(tok) < minTokenLen {
		return sum, fmt.Errorf("token %s: shorter than %d characters; use a long random token", redact(tok), minTokenLen)
	}
	return sha256.Sum256([]byte(tok)), nil
}

// redact names a token in an error without printing it.
func redact(tok string) string {
	if strings.HasPrefix(tok, "sha256:") {
		return fmt.Sprintf("%q", tok)
	}
	return fmt.Sprintf("of %d characters", len(tok))
}

func didList(m map[string]any, name string) ([]string, error) {
	v, ok := m[name]
	if !ok {
		return nil, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%q must be an array of DIDs", name)
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok || !didPattern.MatchString(s) {
			return nil, fmt.Errorf("%s/%d: not a DID", name, i)
		}
		out[i] = s
	}
	return out, nil
}

// Tenant returns the DID a bearer token maps to.
func (a *Auth) Tenant(token string) (string, bool) {
	if a == nil || token == "" {
		return "", false
	}
	did, ok := a.tokens[sha256.Sum256([]byte(token))]
	return did, ok
}

// Enabled reports whether any token or signing did:key is configured.
func (a *Auth) Enabled() bool { return a != nil && (len(a.tokens) > 0 || len(a.didKeys) > 0) }

// SignerKey reports whether did, a did:key, may authenticate by signing
// requests: it is in did_keys, or a token's tenant.
func (a *Auth) SignerKey(did string) bool {
	if a == nil || !strings.HasPrefix(did, "did:key:") {
		return false
	}
	if slices.Contains(a.didKeys, did) {
		return true
	}
	for _, t := range a.tokens {
		if t == did {
			return true
		}
	}
	return false
}

// PublicWriter reports whether did may write public documents.
func (a *Auth) PublicWriter(did string) bool {
	return a != nil && slices.Contains(a.publicWriters, did)
}

// Operator reports whether did may read the metrics.
func (a *Auth) Operator(did string) bool { return a != nil && slices.Contains(a.operators, did) }

// TrustsExporter reports whether an export signed by exporter (a did:key)
// may be imported.
func (a *Auth) TrustsExporter(exporter string) bool {
	return a == nil || len(a.trustedExporters) == 0 || slices.Contains(a.trustedExporters, exporter)
}
