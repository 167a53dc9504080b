package sign

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTrust(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trust.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadTrustFile(t *testing.T) {
	a, b := testSigner(t), otherKey(t)
	path := writeTrust(t, `{"did:web:agent.example": "`+a.DID()+`",
		"did:web:shop.example": "`+base64.RawURLEncoding.EncodeToString(b)+`",
		"`+a.DID()+`": "`+a.DID()+`"}`)
	r, err := LoadTrustFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for did, want := range map[string][]byte{
		"did:web:agent.example":       a.PublicKey(),
		"did:web:agent.example#key-1": a.PublicKey(),
		"did:web:shop.example":        b,
		DIDKey(b):                     b, // offline, not in the file
		DIDKey(b) + "#whatever":       b,
	} {
		got, ok := r.Resolve(did)
		if !ok || string(got) != string(want) {
			t.Errorf("Resolve(%s) = %x, %v; want %x", did, got, ok, want)
		}
	}
	for _, did := range []string{"did:web:other.example", "", "did:key:zBad", "did:web:agent.example.evil"} {
		if _, ok := r.Resolve(did); ok {
			t.Errorf("Resolve(%s) resolved", did)
		}
	}
	var nilR *KeyResolver
	if _, ok := nilR.Resolve(a.DID()); !ok {
		t.Error("a nil KeyResolver does not resolve did:key")
	}
	if _, ok := nilR.Resolve("did:web:agent.example"); ok {
		t.Error("a nil KeyResolver resolved did:web")
	}
}

func TestLoadTrustFileErrors(t *testing.T) {
	a := testSigner(t).DID()
	b := DIDKey(otherKey(t))
	cases := []struct{ file, want string }{
		{`{`, "canon:"},
		{`["did:web:x"]`, "the top level is an array"},
		{`{"agent.example": "` + a + `"}`, `entry "agent.example": not a DID`},
		{`{"did:web:a.example#key-1": "` + a + `"}`, `entry "did:web:a.example#key-1": has a #fragment`},
		{`{"did:web:a.example": 5}`, `entry "did:web:a.example": the key is a number`},
		{`{"did:web:a.example": "did:key:z6MkBAD"}`, `entry "did:web:a.example": sign: malformed did:key`},
		{`{"did:web:a.example": "not*base64"}`, `entry "did:web:a.example": the key is neither`},
		{`{"did:web:a.example": "AAAA"}`, `entry "did:web:a.example": the key decodes to 3 bytes`},
		{`{"` + a + `": "` + b + `"}`, "names another key"},
		{`{"did:web:a.example": "` + a + `", "did:web:a.example": "` + a + `"}`, "duplicate"},
	}
	for _, c := range cases {
		path := writeTrust(t, c.file)
		_, err := LoadTrustFile(path)
		if !errors.Is(err, ErrTrustFile) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("trust file %s: %v, want ErrTrustFile naming the file and %q", c.file, err, c.want)
		}
	}
	if _, err := LoadTrustFile(filepath.Join(t.TempDir(), "absent.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent trust file: %v", err)
	}
}
