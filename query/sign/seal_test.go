package sign

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"testing"
)

func seededSigner(t testing.TB, seed byte) *Signer {
	t.Helper()
	return NewSigner(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize)))
}

func TestSealRoundTripsAndHidesItsState(t *testing.T) {
	z := seededSigner(t, 1).Sealer("cursor")
	for _, n := range []uint64{0, 1, 2, 1 << 40, 1<<64 - 1} {
		tok := z.SealUint64(n)
		got, err := z.OpenUint64(tok)
		if err != nil || got != n {
			t.Fatalf("OpenUint64(SealUint64(%d)) = %d, %v", n, got, err)
		}
		if z.SealUint64(n) == tok {
			t.Fatalf("sealing %d twice gave one token: equal event ids would show that nothing happened between them", n)
		}
		b := binary.BigEndian.AppendUint64(nil, n)
		if first, second := z.Seal(b), z.Seal(b); first != second {
			t.Fatalf("Seal of %d is not deterministic", n)
		}
	}
	// Consecutive numbers share no prefix beyond chance: nothing in the
	// token orders or counts.
	a, b := z.SealUint64(41), z.SealUint64(42)
	if a[:4] == b[:4] {
		t.Fatalf("tokens of 41 and 42 share a prefix: %s %s", a, b)
	}
}

func TestOpenRefusesForeignAndAlteredTokens(t *testing.T) {
	s := seededSigner(t, 1)
	z := s.Sealer("cursor")
	tok := z.Seal([]byte("state"))
	refused := map[string]string{
		"other key":     seededSigner(t, 2).Sealer("cursor").Seal([]byte("state")),
		"other purpose": s.Sealer("event").Seal([]byte("state")),
		"truncated":     tok[:len(tok)-2],
		"empty":         "",
		"not base64url": tok[:10] + "+" + tok[11:],
		"padded":        tok + "=",
	}
	flipped := []byte(tok)
	flipped[5] ^= 1
	if flipped[5] == '+' || flipped[5] == '/' {
		flipped[5] = 'A'
	}
	refused["one character changed"] = string(flipped)
	for name, bad := range refused {
		if plain, err := z.Open(bad); !errors.Is(err, ErrUnsealable) || plain != nil {
			t.Errorf("%s: Open = %q, %v; want ErrUnsealable", name, plain, err)
		}
	}
	if _, err := z.OpenUint64(tok); !errors.Is(err, ErrUnsealable) {
		t.Errorf("a 5-byte token opened as a number: %v", err)
	}
}

func FuzzSealerOpen(f *testing.F) {
	z := seededSigner(f, 1).Sealer("cursor")
	f.Add(z.SealUint64(7))
	f.Add(z.Seal(nil))
	f.Add("")
	f.Fuzz(func(t *testing.T, tok string) {
		plain, err := z.Open(tok)
		if err != nil {
			if !errors.Is(err, ErrUnsealable) || plain != nil {
				t.Fatalf("Open(%q) = %q, %v", tok, plain, err)
			}
			return
		}
		again, err := z.Open(z.Seal(plain))
		if err != nil || !bytes.Equal(again, plain) {
			t.Fatalf("Open(%q) = %q, which does not round-trip: %q, %v", tok, plain, again, err)
		}
	})
}
