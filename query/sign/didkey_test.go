package sign

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/mr-tron/base58"
)

// didKeyVectors are the Ed25519 vectors of the did:key method's test suite
// (w3c-ccg/did-method-key, test-vectors/ed25519-x25519.json): a seed, the
// did:key it yields and the raw public key in base58.
var didKeyVectors = []struct {
	seed, did, pubBase58 string
}{
	{"0000000000000000000000000000000000000000000000000000000000000000",
		"did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp", "4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS"},
	{"0000000000000000000000000000000000000000000000000000000000000001",
		"did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG", "6ASf5EcmmEHTgDJ4X4ZT5vT6iHVJBXPg5AN5YoTCpGWt"},
	{"0000000000000000000000000000000000000000000000000000000000000002",
		"did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf", "8pM1DN3RiT8vbom5u1sNryaNT1nyL8CTTW3b5PwWXRBH"},
	{"0000000000000000000000000000000000000000000000000000000000000003",
		"did:key:z6MkvqoYXQfDDJRv8L4wKzxYeuKyVZBfi9Qo6Ro8MiLH3kDQ", "HPYVwAQmskwT1qEEeRzhoomyfyupJGASQQtCXSNG8XS2"},
	{"0000000000000000000000000000000000000000000000000000000000000004",
		"did:key:z6MkwW6aqMnjgrhJXFUko3NnZPGzVpkNzhYK7yEhnsibmLwL", "J3qYF7YJMKCqQke47UQwiHizgFUXapHxRxKmxbkar89x"},
}

func vectorKey(t testing.TB, seedHex string) ed25519.PrivateKey {
	t.Helper()
	seed, err := hex.DecodeString(seedHex)
	if err != nil {
		t.Fatal(err)
	}
	return ed25519.NewKeyFromSeed(seed)
}

func TestDIDKeyVectors(t *testing.T) {
	for _, v := range didKeyVectors {
		want, err := base58.Decode(v.pubBase58)
		if err != nil {
			t.Fatal(err)
		}
		pub, err := ParseDIDKey(v.did)
		if err != nil {
			t.Fatalf("ParseDIDKey(%s): %v", v.did, err)
		}
		if len(pub) != ed25519.PublicKeySize || !bytes.Equal(pub, want) {
			t.Errorf("ParseDIDKey(%s) = %x, want %x", v.did, pub, want)
		}
		priv := vectorKey(t, v.seed)
		if got := DIDKey(priv.Public().(ed25519.PublicKey)); got != v.did {
			t.Errorf("DIDKey(seed %s) = %s, want %s", v.seed, got, v.did)
		}
		if got := NewSigner(priv).DID(); got != v.did {
			t.Errorf("NewSigner(seed %s).DID() = %s, want %s", v.seed, got, v.did)
		}
	}
}

// TestDIDKeyOwnVectors pins keys made with Go's keygen: a regression test
// for the encoding, alongside the spec's vectors above.
func TestDIDKeyOwnVectors(t *testing.T) {
	for i := 0; i < 50; i++ {
		pub, _, err := ed25519.GenerateKey(nil)
		if err != nil {
			t.Fatal(err)
		}
		did := DIDKey(pub)
		if !strings.HasPrefix(did, "did:key:z6Mk") {
			t.Errorf("DIDKey = %s, want the did:key:z6Mk prefix of every Ed25519 did:key", did)
		}
		got, err := ParseDIDKey(did + "#" + strings.TrimPrefix(did, "did:key:"))
		if err != nil || !got.Equal(pub) {
			t.Fatalf("ParseDIDKey(DIDKey(%x)#frag) = %x, %v", pub, got, err)
		}
	}
}

func TestParseDIDKeyErrors(t *testing.T) {
	good := didKeyVectors[0].did
	mb := strings.TrimPrefix(good, "did:key:")
	raw, _ := base58.Decode(mb[1:])
	x25519 := append([]byte{0xec, 0x01}, raw[2:]...)
	secp := append([]byte{0xe7, 0x01}, raw[2:]...)
	long := append(append([]byte{}, raw...), 0)
	nonMinimal := append([]byte{0xed, 0x81, 0x00}, raw[2:]...)
	cases := []struct{ in, want string }{
		{"", `does not start with "did:key:"`},
		{"did:web:example.com", `does not start with "did:key:"`},
		{"DID:KEY:" + mb, `does not start with "did:key:"`},
		{"did:key:", "no key after"},
		{"did:key:#frag", "no key after"},
		{"did:key:f" + mb[1:], `multibase prefix 'f' is not "z"`},
		{"did:key:z", "not base58btc"},
		{"did:key:z0OIl", "not base58btc"},
		{"did:key:z" + base58.Encode(x25519), "0xec (x25519-pub) is not ed25519-pub"},
		{"did:key:z" + base58.Encode(secp), "0xe7 (secp256k1-pub) is not ed25519-pub"},
		{"did:key:z" + base58.Encode(nonMinimal), "not written minimally"},
		{"did:key:z" + base58.Encode(raw[:20]), "key is 18 bytes, want 32"},
		{"did:key:z" + base58.Encode(long), "key is 33 bytes, want 32"},
		{"did:key:z" + base58.Encode([]byte{0xed}), "no multicodec header"},
		{"did:key:zTjsVPtY", "bytes, want 32"}, // the did:key test suite's "too small"
	}
	for _, c := range cases {
		_, err := ParseDIDKey(c.in)
		if !errors.Is(err, ErrDIDKey) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseDIDKey(%q) = %v, want ErrDIDKey containing %q", c.in, err, c.want)
		}
	}
}

func TestDIDKeyPanicsOnWrongSize(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("DIDKey(31 bytes) did not panic")
		}
	}()
	DIDKey(make([]byte, 31))
}

// FuzzParseDIDKey checks that ParseDIDKey never panics, that whatever it
// accepts is a 32-byte key whose did:key is the input without fragment,
// and that it rejects only with ErrDIDKey.
func FuzzParseDIDKey(f *testing.F) {
	for _, v := range didKeyVectors {
		f.Add(v.did)
		f.Add(v.did + "#" + strings.TrimPrefix(v.did, "did:key:"))
	}
	for _, s := range []string{"", "did:key:", "did:key:z", "did:key:z1111", "did:key:zTjsVPtY", "did:web:x", "did:key:\xff", "did:key:z6Mk#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pub, err := ParseDIDKey(s)
		if err != nil {
			if !errors.Is(err, ErrDIDKey) || pub != nil {
				t.Fatalf("ParseDIDKey(%q) = %x, %v; want nil and ErrDIDKey", s, pub, err)
			}
			return
		}
		id, _, _ := strings.Cut(s, "#")
		if len(pub) != ed25519.PublicKeySize || DIDKey(pub) != id {
			t.Fatalf("ParseDIDKey(%q) = %x; DIDKey gives %s", s, pub, DIDKey(pub))
		}
	})
}
