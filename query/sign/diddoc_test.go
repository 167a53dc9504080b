package sign

import (
	"reflect"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

func TestDIDDocument(t *testing.T) {
	s := testSigner(t)
	doc := DIDDocument(s, "did:web:resolver.example")
	want := `{"@context":["https://www.w3.org/ns/did/v1","https://w3id.org/security/suites/ed25519-2020/v1"],` +
		`"alsoKnownAs":["` + s.DID() + `"],` +
		`"assertionMethod":["did:web:resolver.example#key-1"],` +
		`"authentication":["did:web:resolver.example#key-1"],` +
		`"id":"did:web:resolver.example",` +
		`"verificationMethod":[{"controller":"did:web:resolver.example","id":"did:web:resolver.example#key-1",` +
		`"publicKeyMultibase":"z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp","type":"Ed25519VerificationKey2020"}]}`
	if got := string(canon.AppendValue(nil, doc)); got != want {
		t.Errorf("DIDDocument =\n%s\nwant\n%s", got, want)
	}
	mb := doc["verificationMethod"].([]any)[0].(map[string]any)["publicKeyMultibase"].(string)
	pub, err := ParseDIDKey("did:key:" + mb)
	if err != nil || !reflect.DeepEqual([]byte(pub), []byte(s.PublicKey())) {
		t.Errorf("publicKeyMultibase %s does not name the signer's key: %v", mb, err)
	}
}
