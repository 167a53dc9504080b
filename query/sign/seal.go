package sign

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
)

// A Sealer turns state a resolver hands out and takes back — a page
// cursor, a subscription's event id — into an opaque token that only the
// same key opens. Such state holds the store's document numbers and
// receipt seqs, which count every tenant's documents; sealed, a token
// shows a reader nothing but whether two tokens are equal.
//
// Sealing is AES-256-GCM under a key derived from the signing key's seed
// and a purpose, so tokens of one purpose never open as another's. Seal
// takes its nonce from an HMAC of the plaintext (a synthetic IV): it is
// deterministic, so the same state gives the same token and an answer
// stays reproducible, and a nonce repeats only with its plaintext.
// SealFresh takes a random nonce, so that not even the equality of two
// states shows (an event id that repeats would tell a subscriber that no
// one wrote in between). A Sealer is immutable and safe for concurrent
// use.
type Sealer struct {
	aead cipher.AEAD
	mac  []byte
}

const sealNonce = 12

// Sealer returns the signer's Sealer for purpose (e.g. "cursor"), built
// once per purpose.
func (s *Signer) Sealer(purpose string) *Sealer {
	if z, ok := s.sealers.Load(purpose); ok {
		return z.(*Sealer)
	}
	z, _ := s.sealers.LoadOrStore(purpose, newSealer(s, purpose))
	return z.(*Sealer)
}

func newSealer(s *Signer, purpose string) *Sealer {
	keys, err := hkdf.Key(sha256.New, s.priv.Seed(), nil, "aqlstore seal v1 "+purpose, 64)
	if err != nil {
		panic("sign: hkdf: " + err.Error()) // only for lengths beyond 255 hashes
	}
	block, err := aes.NewCipher(keys[:32])
	if err != nil {
		panic("sign: aes: " + err.Error())
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic("sign: gcm: " + err.Error())
	}
	return &Sealer{aead: aead, mac: keys[32:]}
}

// Seal returns plain sealed deterministically, as base64url without
// padding.
func (z *Sealer) Seal(plain []byte) string {
	h := hmac.New(sha256.New, z.mac)
	h.Write(plain)
	return z.seal(h.Sum(nil)[:sealNonce], plain)
}

// SealFresh returns plain sealed under a random nonce: sealing the same
// plain twice gives two tokens.
func (z *Sealer) SealFresh(plain []byte) string {
	nonce := make([]byte, sealNonce)
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	return z.seal(nonce, plain)
}

func (z *Sealer) seal(nonce, plain []byte) string {
	return base64.RawURLEncoding.EncodeToString(z.aead.Seal(nonce, nonce, plain, nil))
}

// Open returns what token sealed, or ErrUnsealable.
func (z *Sealer) Open(token string) ([]byte, error) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(b) < sealNonce+z.aead.Overhead() {
		return nil, ErrUnsealable
	}
	plain, err := z.aead.Open(nil, b[:sealNonce], b[sealNonce:], nil)
	if err != nil {
		return nil, ErrUnsealable
	}
	return plain, nil
}

// SealUint64 seals n under a random nonce (SealFresh).
func (z *Sealer) SealUint64(n uint64) string {
	return z.SealFresh(binary.BigEndian.AppendUint64(nil, n))
}

// OpenUint64 returns the n that token sealed (SealUint64), or
// ErrUnsealable.
func (z *Sealer) OpenUint64(token string) (uint64, error) {
	b, err := z.Open(token)
	if err != nil {
		return 0, err
	}
	if len(b) != 8 {
		return 0, ErrUnsealable
	}
	return binary.BigEndian.Uint64(b), nil
}
