package sign

import (
	"crypto/ed25519"
	"fmt"
	"strings"
)

// Verdict is what VerifyIntent concludes about an intent's issuer.
type Verdict int

const (
	// Refused means the intent must be refused with a signed error (RFC
	// 0020 R1); VerifyIntent returns it with the error that says why.
	Refused Verdict = iota
	// VerifiedSignature means issuer_did's key resolved and the signature
	// verifies under it: the intent speaks for issuer_did.
	VerifiedSignature
	// UnresolvedIssuer means issuer_did has no key the Resolver knows, so
	// nothing binds the intent to it: the caller serves it as an anonymous
	// reader of public documents only.
	UnresolvedIssuer
)

// String returns the verdict's name.
func (v Verdict) String() string {
	switch v {
	case Refused:
		return "refused"
	case VerifiedSignature:
		return "verified_signature"
	case UnresolvedIssuer:
		return "unresolved_issuer"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// VerifyIntent checks an intent's signature and says whom it speaks for.
//
// The key comes from issuer_did (a did:key resolves offline, other DIDs
// through r, which may be nil) and from the signature's kid when the kid is
// a did:key URL:
//
//   - issuer_did resolves: the signature must verify under its key, and a
//     did:key kid must name that same key; the verdict is
//     VerifiedSignature. A missing, malformed or failing signature is an
//     error (Refused): a known issuer whose intent does not verify is
//     refused, never served as anonymous.
//   - issuer_did does not resolve but the kid is a did:key: the signature
//     must verify under the kid's key (else Refused, the document was
//     tampered with), yet the key does not speak for issuer_did, so the
//     verdict is UnresolvedIssuer.
//   - neither resolves: UnresolvedIssuer, the signature unchecked.
//
// A kid that starts with "did:key:" but does not parse is refused. Errors
// wrap ErrBadSignature, ErrNoSignature, ErrUnsupportedAlg, ErrInvalidKey or
// ErrUnsignable; every error means Refused.
func VerifyIntent(doc map[string]any, r Resolver) (Verdict, error) {
	pub, speaksForIssuer, err := intentKey(doc, r)
	if err != nil {
		return Refused, err
	}
	if pub == nil {
		return UnresolvedIssuer, nil
	}
	if err := Verify(doc, pub); err != nil {
		return Refused, err
	}
	if !speaksForIssuer {
		return UnresolvedIssuer, nil
	}
	return VerifiedSignature, nil
}

// intentKey picks the key an intent's signature must verify under, and
// whether that key is issuer_did's. A nil key means there is none to check.
func intentKey(doc map[string]any, r Resolver) (ed25519.PublicKey, bool, error) {
	issuerKey, resolved := issuerKey(doc, r)
	kidKey, err := kidKey(doc)
	switch {
	case err != nil:
		return nil, false, err
	case resolved && kidKey != nil && !kidKey.Equal(issuerKey):
		return nil, false, badSig("/signature/kid", fmt.Sprintf("names key %s, but issuer_did resolves to %s",
			DIDKey(kidKey), DIDKey(issuerKey)))
	case resolved:
		return issuerKey, true, nil
	}
	return kidKey, false, nil
}

// issuerKey resolves issuer_did: a did:key offline, anything else through
// r. A key of the wrong size counts as resolved, so that Verify reports it.
func issuerKey(doc map[string]any, r Resolver) (ed25519.PublicKey, bool) {
	issuer, _ := doc["issuer_did"].(string)
	if issuer == "" {
		return nil, false
	}
	if strings.HasPrefix(issuer, didKeyPrefix) {
		pub, err := ParseDIDKey(issuer)
		return pub, err == nil
	}
	if r == nil {
		return nil, false
	}
	return r.Resolve(issuer)
}

// kidKey returns the key a did:key kid names, nil when the kid is absent
// or another kind of id, and an error when it claims did:key but does not
// parse.
func kidKey(doc map[string]any) (ed25519.PublicKey, error) {
	sig, _ := doc[signatureMember].(map[string]any)
	kid, _ := sig["kid"].(string)
	if !strings.HasPrefix(kid, didKeyPrefix) {
		return nil, nil
	}
	pub, err := ParseDIDKey(kid)
	if err != nil {
		return nil, badSig("/signature/kid", err.Error())
	}
	return pub, nil
}
