package sign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/aqlstore/aqlstore/canon"
)

// maxKeyFile bounds what LoadOrCreateKey reads: a key file is ~150 bytes.
const maxKeyFile = 64 << 10

// LoadOrCreateKey returns the Ed25519 private key kept at path, creating
// the file with a fresh key when there is none; created reports that it
// did. The file is a JWK (RFC 8037):
//
//	{"crv":"Ed25519","d":"<base64url seed>","kty":"OKP","x":"<base64url public key>"}
//
// It is created with mode 0600 (its directory, if missing, with 0700),
// written to a temporary file, synced and then linked into place, so a
// crash never leaves a half-written key and two processes starting at once
// end up with the same key. An existing file open to group or others is
// refused with ErrKeyPermissions and the chmod that fixes it (not checked
// on Windows); a malformed one with ErrKeyFile naming the member.
func LoadOrCreateKey(path string) (priv ed25519.PrivateKey, created bool, err error) {
	priv, err = loadKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return priv, false, err
	}
	priv, err = createKey(path)
	if errors.Is(err, fs.ErrExist) { // another process created it first
		priv, err = loadKey(path)
		return priv, false, err
	}
	return priv, err == nil, err
}

// loadKey reads and checks an existing key file.
func loadKey(path string) (ed25519.PrivateKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sign: key file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("sign: key file: %w", err)
	}
	if err := checkKeyMode(path, fi.Mode()); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("sign: key file: %w", err)
	}
	return parseJWK(path, b)
}

// checkKeyMode refuses anything but a regular file that only its owner
// can read or write.
func checkKeyMode(path string, mode fs.FileMode) error {
	if !mode.IsRegular() {
		return fmt.Errorf("%w %s: not a regular file (mode %v)", ErrKeyFile, path, mode)
	}
	if runtime.GOOS == "windows" || mode.Perm()&0o077 == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s has mode %04o, open to group or others; run: chmod 600 %s",
		ErrKeyPermissions, path, mode.Perm(), path)
}

// parseJWK reads an Ed25519 private JWK and checks that x belongs to d.
func parseJWK(path string, b []byte) (ed25519.PrivateKey, error) {
	if len(b) > maxKeyFile {
		return nil, keyFileError(path, "", fmt.Sprintf("over %d bytes; this is not a key file", maxKeyFile))
	}
	v, err := canon.Decode(b, nil)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrKeyFile, path, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, keyFileError(path, "", "want a JWK object {kty, crv, d, x}")
	}
	if err := jwkHeader(path, m); err != nil {
		return nil, err
	}
	return jwkKey(path, m)
}

// jwkHeader checks kty and crv.
func jwkHeader(path string, m map[string]any) error {
	if m["kty"] != "OKP" {
		return keyFileError(path, "kty", `want "OKP" (an Ed25519 key, RFC 8037)`)
	}
	if m["crv"] != "Ed25519" {
		return keyFileError(path, "crv", `want "Ed25519"`)
	}
	return nil
}

// jwkKey decodes d (the seed) and x (the public key) and checks they agree.
func jwkKey(path string, m map[string]any) (ed25519.PrivateKey, error) {
	seed, err := jwkBytes(path, m, "d", ed25519.SeedSize)
	if err != nil {
		return nil, err
	}
	x, err := jwkBytes(path, m, "x", ed25519.PublicKeySize)
	if err != nil {
		return nil, err
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if !bytes.Equal(priv[ed25519.SeedSize:], x) {
		return nil, keyFileError(path, "x", "is not the public key of d; the file is damaged (restore it, or remove it to make a new key and identity)")
	}
	return priv, nil
}

// jwkBytes decodes a base64url member of n bytes.
func jwkBytes(path string, m map[string]any, name string, n int) ([]byte, error) {
	s, ok := m[name].(string)
	if !ok {
		return nil, keyFileError(path, name, "missing or not a string; want base64url without padding")
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, keyFileError(path, name, "not base64url without padding: "+err.Error())
	}
	if len(b) != n {
		return nil, keyFileError(path, name, fmt.Sprintf("decodes to %d bytes, want %d", len(b), n))
	}
	return b, nil
}

func keyFileError(path, member, reason string) error {
	if member == "" {
		return fmt.Errorf("%w %s: %s", ErrKeyFile, path, reason)
	}
	return fmt.Errorf("%w %s: member %q: %s", ErrKeyFile, path, member, reason)
}

// createKey makes a new key and writes it to path. It fails with an error
// matching fs.ErrExist when path appeared meanwhile.
func createKey(path string) (ed25519.PrivateKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("sign: generate key: %w", err)
	}
	if err := writeNewFile(path, encodeJWK(priv)); err != nil {
		return nil, err
	}
	return priv, nil
}

// encodeJWK writes priv as an RFC 8037 private JWK, members sorted.
func encodeJWK(priv ed25519.PrivateKey) []byte {
	b64 := base64.RawURLEncoding.EncodeToString
	return fmt.Appendf(nil, `{"crv":"Ed25519","d":%q,"kty":"OKP","x":%q}`+"\n",
		b64(priv.Seed()), b64(priv[ed25519.SeedSize:]))
}

// writeNewFile writes data to a temporary file beside path, syncs it, and
// links it to path, which must not exist yet. Where the file system has no
// hard links it falls back to rename.
func writeNewFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("sign: key file: %w", err)
	}
	tmp, err := writeTemp(dir, filepath.Base(path), data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("sign: key file: %w", err)
		}
	}
	syncDir(dir)
	return nil
}

// writeTemp writes data, synced, to a new file of mode 0600 in dir.
func writeTemp(dir, base string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("sign: key file: %w", err)
	}
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("sign: key file: %w", err)
	}
	return f.Name(), nil
}

// syncDir makes the new directory entry durable. It is best effort: some
// systems (Windows) and file systems cannot sync a directory, and the key
// is already written and synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
