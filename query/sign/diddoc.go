package sign

// DID document contexts: DID core and the Ed25519 2020 suite, which defines
// Ed25519VerificationKey2020 and publicKeyMultibase.
const (
	contextDIDv1        = "https://www.w3.org/ns/did/v1"
	contextEd25519Suite = "https://w3id.org/security/suites/ed25519-2020/v1"
)

// DIDDocument builds the W3C DID document for didWeb (e.g.
// "did:web:resolver.example") that the server publishes at
// /.well-known/did.json. It has one verification method, didWeb#key-1, an
// Ed25519VerificationKey2020 whose publicKeyMultibase is the signer's key in
// did:key form (z6Mk…), used for assertionMethod and authentication, and
// lists the signer's did:key in alsoKnownAs. didWeb is written as given;
// the caller checks it. The document is a fresh decoded-model value
// ([]any, map[string]any) that canon.AppendValue encodes.
func DIDDocument(signer *Signer, didWeb string) map[string]any {
	vm := didWeb + "#key-1"
	method := map[string]any{
		"id":                 vm,
		"type":               "Ed25519VerificationKey2020",
		"controller":         didWeb,
		"publicKeyMultibase": multibaseKey(signer.PublicKey()),
	}
	return map[string]any{
		"@context":           []any{contextDIDv1, contextEd25519Suite},
		"id":                 didWeb,
		"verificationMethod": []any{method},
		"assertionMethod":    []any{vm},
		"authentication":     []any{vm},
		"alsoKnownAs":        []any{signer.DID()},
	}
}
