package sign

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"testing"
)

// BenchmarkSignatureCost is what one signature costs at the sizes of the
// answers the benchmark's workloads give: 1.5 KB (a point query listing
// one rejection), 5.8 KB (the same listing ten, the default), 48 KiB (a
// first page of 100) and 470 KiB (1,000 results). Ed25519, the one
// algorithm sign implements, hashes its message twice with SHA-512; for
// comparison, the two others the OAP schemas name or RFC 8032 defines:
// ES256 (ECDSA P-256 over one SHA-256 pass, which Go runs with the
// CPU's SHA instructions where it has them: x86 SHA-NI, Arm SHA2) and Ed25519ph (one SHA-512 pass, then
// Ed25519 over the digest). Neither is implemented; the figures say
// what choosing one would save on large answers.
func BenchmarkSignatureCost(b *testing.B) {
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{1500, 5800, 48 << 10, 470 << 10} {
		msg := make([]byte, size)
		b.Run(fmt.Sprintf("bytes=%d/Ed25519", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				ed25519.Sign(edKey, msg)
			}
		})
		b.Run(fmt.Sprintf("bytes=%d/Ed25519ph", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				h := sha512.Sum512(msg)
				if _, err := edKey.Sign(nil, h[:], &ed25519.Options{Hash: crypto.SHA512}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("bytes=%d/ES256", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				h := sha256.Sum256(msg)
				if _, err := ecdsa.SignASN1(rand.Reader, ecKey, h[:]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
