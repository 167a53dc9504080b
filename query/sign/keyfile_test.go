package sign

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// rfc8037Key is the Ed25519 private key of RFC 8037, Appendix A.1.
const rfc8037Key = `{"kty":"OKP","crv":"Ed25519",
 "d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A",
 "x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`

func TestLoadOrCreateKeyCreatesThenLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "server.jwk")
	priv, created, err := LoadOrCreateKey(path)
	if err != nil || !created || len(priv) != ed25519.PrivateKeySize {
		t.Fatalf("LoadOrCreateKey(new) = %d bytes, %v, %v", len(priv), created, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	m := decodeObj(t, readFile(t, path))
	if m["kty"] != "OKP" || m["crv"] != "Ed25519" || m["x"] != base64.RawURLEncoding.EncodeToString(priv[32:]) {
		t.Errorf("key file = %v", m)
	}
	again, created, err := LoadOrCreateKey(path)
	if err != nil || created || !again.Equal(priv) {
		t.Fatalf("LoadOrCreateKey(existing) = %v, %v; want the same key", created, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestLoadOrCreateKeyConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.jwk")
	const n = 8
	keys := make([]ed25519.PrivateKey, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if keys[i], _, err = LoadOrCreateKey(path); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i := range keys {
		if !keys[i].Equal(keys[0]) {
			t.Fatalf("concurrent callers got different keys")
		}
	}
}

func TestLoadKeyRFC8037(t *testing.T) {
	path := writeKeyFile(t, rfc8037Key, 0o600)
	priv, created, err := LoadOrCreateKey(path)
	if err != nil || created {
		t.Fatalf("LoadOrCreateKey = %v, %v", created, err)
	}
	x, _ := base64.RawURLEncoding.DecodeString("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
	if !priv.Public().(ed25519.PublicKey).Equal(ed25519.PublicKey(x)) {
		t.Errorf("public key %x, want %x", priv.Public(), x)
	}
}

func TestLoadKeyPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	for _, mode := range []fs.FileMode{0o644, 0o640, 0o604, 0o660} {
		path := writeKeyFile(t, rfc8037Key, mode)
		_, _, err := LoadOrCreateKey(path)
		if !errors.Is(err, ErrKeyPermissions) || !strings.Contains(err.Error(), "chmod 600 "+path) {
			t.Errorf("mode %04o: %v, want ErrKeyPermissions with the chmod", mode, err)
		}
	}
	path := writeKeyFile(t, rfc8037Key, 0o400)
	if _, _, err := LoadOrCreateKey(path); err != nil {
		t.Errorf("mode 0400: %v", err)
	}
}

func TestLoadKeyMalformed(t *testing.T) {
	x := `"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"`
	d := `"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"`
	cases := []struct{ file, want string }{
		{``, "canon:"},
		{`not json`, "canon:"},
		{`[1]`, "want a JWK object"},
		{`{"kty":"EC","crv":"Ed25519","d":` + d + `,"x":` + x + `}`, `member "kty"`},
		{`{"kty":"OKP","crv":"X25519","d":` + d + `,"x":` + x + `}`, `member "crv"`},
		{`{"kty":"OKP","crv":"Ed25519","x":` + x + `}`, `member "d": missing`},
		{`{"kty":"OKP","crv":"Ed25519","d":"a+b/","x":` + x + `}`, `member "d": not base64url`},
		{`{"kty":"OKP","crv":"Ed25519","d":"AAAA","x":` + x + `}`, `member "d": decodes to 3 bytes, want 32`},
		{`{"kty":"OKP","crv":"Ed25519","d":` + d + `}`, `member "x": missing`},
		{`{"kty":"OKP","crv":"Ed25519","d":` + d + `,"x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`, `member "x": is not the public key of d`},
		{`{"kty":"OKP","kty":"OKP","crv":"Ed25519","d":` + d + `,"x":` + x + `}`, "duplicate"},
		{strings.Repeat(" ", maxKeyFile+1), "this is not a key file"},
	}
	for _, c := range cases {
		path := writeKeyFile(t, c.file, 0o600)
		_, created, err := LoadOrCreateKey(path)
		if created || !errors.Is(err, ErrKeyFile) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("key file %.60q: %v, want ErrKeyFile naming the path and %q", c.file, err, c.want)
		}
	}
	if _, _, err := LoadOrCreateKey(t.TempDir()); !errors.Is(err, ErrKeyFile) {
		t.Errorf("a directory: %v", err)
	}
}

func writeKeyFile(t *testing.T, content string, mode fs.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.jwk")
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // umask may have narrowed it
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
