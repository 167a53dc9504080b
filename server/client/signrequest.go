package client

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/aqlstore/aqlstore/query/sign"
)

// SchemeDIDKey is the Authorization scheme of a request signed with a
// tenant's did:key instead of a bearer token:
//
//	Authorization: DIDKey kid="did:key:z6Mk…", created="1767225600",
//	    nonce="…", body-sha256="<hex>", sig="<base64url>"
//
// kid is the tenant (a did:key the server's auth file names), created the
// signing time in Unix seconds, nonce 16 to 128 characters of
// [A-Za-z0-9_-] never used twice, body-sha256 the lowercase hex sha256 of
// the body (of no bytes when there is none), and sig the unpadded base64url
// Ed25519 signature over RequestSigningInput. The server refuses a created
// time more than its window (5 minutes) away from its clock, a nonce it
// has seen within the window, and a body whose sha256 differs.
const SchemeDIDKey = "DIDKey"

// requestSigningVersion starts the signing input, so that these bytes can
// never be mistaken for another signed message.
const requestSigningVersion = "aqlstore-request-v1"

// RequestSigningInput returns the bytes the signature of a DIDKey request
// covers: a version line, then the method, the request target (path and
// query exactly as sent), the audience (the server's did:key, from
// /.well-known/did.json, so that a request signed for one server is
// refused by another), created, nonce and body-sha256, each followed by a
// line feed.
func RequestSigningInput(method, target, audience string, created int64, nonce, bodySHA256 string) []byte {
	var b bytes.Buffer
	for _, line := range []string{requestSigningVersion, method, target, audience,
		strconv.FormatInt(created, 10), nonce, bodySHA256} {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// SignRequest signs req, whose body is body, with priv for the server
// whose did:key is audience, as of now: it sets the Authorization header
// of the DIDKey scheme with a fresh random nonce.
func SignRequest(req *http.Request, body []byte, priv ed25519.PrivateKey, audience string, now time.Time) error {
	var n [18]byte
	if _, err := rand.Read(n[:]); err != nil {
		return fmt.Errorf("aqlstore client: nonce: %w", err)
	}
	nonce := base64.RawURLEncoding.EncodeToString(n[:])
	sum := sha256.Sum256(body)
	digest := hex.EncodeToString(sum[:])
	created := now.Unix()
	kid := sign.DIDKey(priv.Public().(ed25519.PublicKey))
	sig := ed25519.Sign(priv, RequestSigningInput(req.Method, req.URL.RequestURI(), audience, created, nonce, digest))
	req.Header.Set("Authorization", fmt.Sprintf(`%s kid=%q, created="%d", nonce=%q, body-sha256=%q, sig=%q`,
		SchemeDIDKey, kid, created, nonce, digest, base64.RawURLEncoding.EncodeToString(sig)))
	return nil
}

// audience returns the server's did:key for signed requests: ServerDID,
// else the key of /.well-known/did.json, fetched once.
func (c *Client) audience(ctx context.Context) (string, error) {
	if c.ServerDID != "" {
		return c.ServerDID, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.serverDID != "" {
		return c.serverDID, nil
	}
	pub, err := c.ServerKey(ctx) // unsigned: did.json is public
	if err != nil {
		return "", fmt.Errorf("aqlstore client: the server's did:key for signing: %w", err)
	}
	c.serverDID = sign.DIDKey(pub)
	return c.serverDID, nil
}
