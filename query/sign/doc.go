// Package sign signs and verifies aqlstore's JSON documents: intent
// responses going out, intents coming in.
//
// A signature is Ed25519 over the RFC 8785 (JCS) bytes of a JSON object
// without its top-level "signature" member, carried in that member as
//
//	{"alg": "EdDSA", "kid": "did:key:z…#z…", "value": "<base64url, no padding>"}
//
// Because the bytes signed are canonical, a document may be re-encoded in
// transit (members reordered, whitespace changed, 1.0 written as 1, "é"
// written as "\u00e9") and still verify; any change of a value does not.
// The signature block itself is not covered: changing its kid is caught
// only where the kid chooses the key (VerifyIntent).
//
// There are only a few things in sign:
//
//   - Signer holds the server's private key and signs documents (Sign for a
//     decoded object, SignBytes for encoded JSON). AppendSigned signs and
//     returns the bytes to send in one canonical pass: the bytes signed
//     with the signature member put in its sorted place.
//
// The RFC 8785 bytes are written straight from the Go values, in one pass,
// by canon.AppendCanonicalExcept: aqlstore's one RFC 8785 writer, which
// documents, responses and digests use too; gowebpki/jcs, which re-parsed
// a first encoding, remains only as the tests' oracle.
//   - Verify and VerifyBytes check a signature against a given public key.
//   - DIDKey and ParseDIDKey convert between Ed25519 public keys and did:key
//     identifiers; DIDDocument builds the did:web document the server
//     publishes at /.well-known/did.json.
//   - LoadOrCreateKey keeps the server's key in a JWK file of mode 0600.
//   - Resolver, KeyResolver and LoadTrustFile find an issuer's public key:
//     did:key offline, any other DID through a trust file. VerifyIntent
//     combines them into a Verdict for an incoming intent (RFC 0020 R1).
//
// Only Ed25519 ("EdDSA") is implemented; ES256 and ES384, which the OAP
// schemas also allow, are reported as ErrUnsupportedAlg.
//
// Everything in sign is safe for concurrent use: a Signer and a
// KeyResolver are read-only after construction (do not change a
// KeyResolver's Trust map while it is in use). Returned documents and
// bytes belong to the caller.
package sign
