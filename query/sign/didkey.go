package sign

import (
	"crypto/ed25519"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mr-tron/base58"
)

// didKeyPrefix starts every did:key identifier.
const didKeyPrefix = "did:key:"

// ed25519Codec is the multicodec code of an Ed25519 public key
// (ed25519-pub), written as the unsigned varint 0xed 0x01.
const ed25519Codec = 0xed

// codecNames names the multicodecs a did:key commonly carries, so that an
// error can say which key type was given instead of Ed25519.
var codecNames = map[uint64]string{
	0xe7:   "secp256k1-pub",
	0xec:   "x25519-pub",
	0xeb:   "bls12_381-g1-pub",
	0xee:   "bls12_381-g2-pub",
	0x1200: "p256-pub",
	0x1201: "p384-pub",
	0x1202: "p521-pub",
	0x1205: "rsa-pub",
}

// DIDKey returns the did:key identifier of an Ed25519 public key:
// "did:key:" + "z" + base58btc(0xed 0x01 ‖ key). It panics if pub is not
// 32 bytes, as crypto/ed25519 does for keys of the wrong size.
func DIDKey(pub ed25519.PublicKey) string {
	return didKeyPrefix + multibaseKey(pub)
}

// multibaseKey is the method-specific part of a did:key, also used as the
// publicKeyMultibase of an Ed25519VerificationKey2020.
func multibaseKey(pub ed25519.PublicKey) string {
	if len(pub) != ed25519.PublicKeySize {
		panic(fmt.Sprintf("sign: Ed25519 public key is %d bytes, want %d", len(pub), ed25519.PublicKeySize))
	}
	buf := make([]byte, 0, 2+len(pub))
	buf = binary.AppendUvarint(buf, ed25519Codec)
	return "z" + base58.Encode(append(buf, pub...))
}

// ParseDIDKey returns the Ed25519 public key a did:key names. A DID URL
// with a fragment (did:key:z…#z…, a verification method id) is accepted
// and the fragment ignored: the key is in the DID itself. Errors wrap
// ErrDIDKey and say what is wrong: the prefix, the multibase encoding,
// the base58 text, the multicodec or the key length.
func ParseDIDKey(did string) (ed25519.PublicKey, error) {
	id, _, _ := strings.Cut(did, "#")
	mb, ok := strings.CutPrefix(id, didKeyPrefix)
	if !ok {
		return nil, didKeyError(did, `does not start with "did:key:"`)
	}
	pub, reason := parseMultibaseKey(mb)
	if reason != "" {
		return nil, didKeyError(did, reason)
	}
	return pub, nil
}

// parseMultibaseKey decodes "z" + base58btc(multicodec ‖ key); it returns
// the key, or the reason it is not an Ed25519 key.
func parseMultibaseKey(mb string) (ed25519.PublicKey, string) {
	if mb == "" {
		return nil, `no key after "did:key:"`
	}
	if mb[0] != 'z' {
		r, _ := utf8.DecodeRuneInString(mb)
		return nil, fmt.Sprintf(`multibase prefix %q is not "z" (base58btc), the only encoding did:key uses`, r)
	}
	raw, err := base58.Decode(mb[1:])
	if err != nil || len(raw) == 0 {
		return nil, "the text after \"z\" is not base58btc (alphabet 1-9A-HJ-NP-Za-km-z)"
	}
	return ed25519Key(raw)
}

// ed25519Key checks the multicodec header and the key length.
func ed25519Key(raw []byte) (ed25519.PublicKey, string) {
	codec, n := binary.Uvarint(raw)
	if n <= 0 {
		return nil, "no multicodec header before the key"
	}
	if codec != ed25519Codec {
		return nil, fmt.Sprintf("multicodec 0x%x%s is not ed25519-pub (0xed 0x01)", codec, codecName(codec))
	}
	if n != 2 {
		return nil, "multicodec ed25519-pub is not written minimally (want the two bytes 0xed 0x01)"
	}
	key := raw[n:]
	if len(key) != ed25519.PublicKeySize {
		return nil, fmt.Sprintf("Ed25519 key is %d bytes, want %d", len(key), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(key), ""
}

func codecName(codec uint64) string {
	if name, ok := codecNames[codec]; ok {
		return " (" + name + ")"
	}
	return ""
}

func didKeyError(did, reason string) error {
	return fmt.Errorf("%w %s: %s", ErrDIDKey, quoteShort(did), reason)
}
