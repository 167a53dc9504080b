package server

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server/client"
)

// A request signed with a tenant's did:key (client.SchemeDIDKey, which
// documents the header) authenticates like a bearer token: the caller is
// the did:key, which the auth file must name (did_keys, or a token's
// tenant). The signature covers the method, the request target, this
// server's did:key, the time, a nonce and the body's sha256
// (client.RequestSigningInput), so a captured request cannot be sent to
// another server, to another path, with another body, later than the
// window, or twice.

// maxNonces bounds the nonces remembered; beyond it signed requests are
// refused (503) until old ones expire, rather than memory growing.
const maxNonces = 1 << 20

var noncePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,128}$`)

// errBodyDigest is a signed request's body that is not the one signed.
var errBodyDigest = errors.New("server: the body's sha256 is not the body-sha256 the request signed")

// signedRequest is the parsed Authorization of the DIDKey scheme.
type signedRequest struct {
	kid, nonce, digest string
	created            int64
	pub                ed25519.PublicKey
	sig                []byte
	want               [sha256.Size]byte
}

// verifySigned authenticates a DIDKey request (params: the header after
// the scheme) and returns its tenant. The body is checked as the handler
// reads it (digestBody).
func (s *Server) verifySigned(r *http.Request, params string) (string, *problem) {
	sr, why := parseSigned(params)
	if why == "" {
		why = s.checkSigned(r, sr)
	}
	if why != "" {
		p := unauthorized("signed request refused: " + why)
		return "", &p
	}
	switch s.nonces.add(sr.kid, sr.nonce, s.cfg.Now(), 2*s.cfg.SignedRequestWindow) {
	case nonceReplayed:
		p := unauthorized("signed request refused: nonce already used within the window: a replay (use a fresh nonce per request)")
		return "", &p
	case nonceFull:
		p := unavailable("busy", "too many signed requests in the replay window; retry later")
		return "", &p
	}
	r.Body = &digestBody{r: r.Body, h: sha256.New(), want: sr.want}
	return sr.kid, nil
}

// checkSigned checks everything but the nonce's novelty; "" when good.
// A kid that is no tenant gets the answer a bad signature gets, after
// the same work: a stranger must not learn which did:keys are tenants.
func (s *Server) checkSigned(r *http.Request, sr *signedRequest) string {
	now := s.cfg.Now()
	skew := now.Sub(time.Unix(sr.created, 0))
	if skew > s.cfg.SignedRequestWindow || -skew > s.cfg.SignedRequestWindow {
		return "created is " + skew.Round(time.Second).String() + " away from the server's clock " +
			now.UTC().Format(time.RFC3339) + "; the window is " + s.cfg.SignedRequestWindow.String() + " (sign just before sending)"
	}
	msg := client.RequestSigningInput(r.Method, r.RequestURI, s.cfg.Signer.DID(), sr.created, sr.nonce, sr.digest)
	verified := ed25519.Verify(sr.pub, msg, sr.sig)
	if !verified || !s.cfg.Auth.SignerKey(sr.kid) {
		return "sig does not verify under a tenant's kid over method, target, audience " + s.cfg.Signer.DID() +
			", created, nonce and body-sha256 (see client.RequestSigningInput); the kid must be a did:key in did_keys of the auth file"
	}
	return ""
}

// parseSigned reads kid="…", created="…", nonce="…", body-sha256="…",
// sig="…" (each exactly once, any order); why is "" when it parses.
func parseSigned(params string) (sr *signedRequest, why string) {
	m := map[string]string{}
	for _, part := range strings.Split(params, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, "want kid=, created=, nonce=, body-sha256=, sig= separated by commas"
		}
		if _, dup := m[k]; dup {
			return nil, "parameter " + k + " given twice"
		}
		m[k] = strings.Trim(v, `"`)
	}
	sr = &signedRequest{kid: m["kid"], nonce: m["nonce"], digest: m["body-sha256"]}
	var err error
	switch {
	case len(m) != 5:
		return nil, "want exactly kid, created, nonce, body-sha256 and sig"
	case !noncePattern.MatchString(sr.nonce):
		return nil, "nonce must be 16 to 128 characters of A-Z a-z 0-9 _ -"
	}
	if sr.pub, err = sign.ParseDIDKey(sr.kid); err != nil {
		return nil, "kid: " + err.Error()
	}
	if sr.created, err = strconv.ParseInt(m["created"], 10, 64); err != nil {
		return nil, "created must be Unix seconds"
	}
	if d, err := hex.DecodeString(sr.digest); err != nil || len(d) != sha256.Size || strings.ToLower(sr.digest) != sr.digest {
		return nil, "body-sha256 must be 64 lowercase hex digits"
	} else {
		copy(sr.want[:], d)
	}
	if sr.sig, err = base64.RawURLEncoding.DecodeString(m["sig"]); err != nil || len(sr.sig) != ed25519.SignatureSize {
		return nil, "sig must be an Ed25519 signature in unpadded base64url"
	}
	return sr, ""
}

// digestBody checks, when the handler has read the body to its end, that
// it is the body the request signed.
type digestBody struct {
	r    io.ReadCloser
	h    hash.Hash
	want [sha256.Size]byte
}

func (d *digestBody) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	d.h.Write(p[:n])
	if err == io.EOF && !bytes.Equal(d.h.Sum(nil), d.want[:]) {
		return n, errBodyDigest
	}
	return n, err
}

func (d *digestBody) Close() error { return d.r.Close() }

// nonceCache remembers the (kid, nonce) pairs of the replay window. Its
// entries expire in arrival order (each lives 2×window from arrival, past
// which its created time is stale anyway), so a FIFO prunes it. Safe for
// concurrent use.
type nonceCache struct {
	mu   sync.Mutex
	keys map[[sha256.Size]byte]struct{}
	fifo []nonceEntry // fifo[head:] are live, oldest first
	head int
}

type nonceEntry struct {
	key     [sha256.Size]byte
	expires time.Time
}

// What nonceCache.add concluded.
const (
	nonceNew = iota
	nonceReplayed
	nonceFull
)

func newNonceCache() *nonceCache { return &nonceCache{keys: map[[sha256.Size]byte]struct{}{}} }

// add remembers the pair for ttl unless it is already there (a replay) or
// the cache is full.
func (c *nonceCache) add(kid, nonce string, now time.Time, ttl time.Duration) int {
	k := sha256.Sum256([]byte(kid + "\n" + nonce))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prune(now)
	if _, dup := c.keys[k]; dup {
		return nonceReplayed
	}
	if len(c.keys) >= maxNonces {
		return nonceFull
	}
	c.keys[k] = struct{}{}
	c.fifo = append(c.fifo, nonceEntry{key: k, expires: now.Add(ttl)})
	return nonceNew
}

func (c *nonceCache) prune(now time.Time) {
	for c.head < len(c.fifo) && !c.fifo[c.head].expires.After(now) {
		delete(c.keys, c.fifo[c.head].key)
		c.head++
	}
	if c.head > 1024 && c.head > len(c.fifo)/2 { // compact now and then, not per request
		c.fifo = append(c.fifo[:0], c.fifo[c.head:]...)
		c.head = 0
	}
}
