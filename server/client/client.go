package client

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Client talks to one aqlstore server. It is safe for concurrent use.
type Client struct {
	// BaseURL is the server's address, e.g. http://127.0.0.1:8080.
	BaseURL string
	// Token, when set, is sent as Authorization: Bearer Token.
	Token string
	// HTTP sends the requests (default: a client with keep-alive
	// connections and no overall timeout, which streams need; bound each
	// call with its context).
	HTTP *http.Client
	// Key, when set and Token is not, signs every request (SchemeDIDKey):
	// the caller is the key's did:key, which the server's auth file must
	// name.
	Key ed25519.PrivateKey
	// ServerDID is the server's did:key that signed requests are
	// addressed to; "" fetches it from /.well-known/did.json once.
	ServerDID string

	mu        sync.Mutex // guards serverDID
	serverDID string
}

// New returns a Client for baseURL, authenticated by token ("" for none).
func New(baseURL, token string) *Client {
	return &Client{BaseURL: strings.TrimSuffix(baseURL, "/"), Token: token, HTTP: &http.Client{}}
}

// maxResponseBytes bounds a response body the client reads whole.
const maxResponseBytes = 1 << 30

// Error is an answer other than 2xx: its status and body, which is a
// signed RFC 9457 problem document (for a refused intent, also the signed
// error document with every problem's JSON Pointer).
type Error struct {
	Status int
	Body   []byte
	// Problem is the decoded body when it is a JSON object.
	Problem map[string]any
}

// Error reads like "aqlstore server: 400 invalid_intent: 2 problem(s) …".
func (e *Error) Error() string {
	code, _ := e.Problem["code"].(string)
	detail, _ := e.Problem["detail"].(string)
	if code == "" {
		return fmt.Sprintf("aqlstore server: %d %s", e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("aqlstore server: %d %s: %s", e.Status, code, detail)
}

// RetryAfter is the wait a 429 or 503 asked for, 0 when none.
func RetryAfter(resp *http.Response) time.Duration {
	var secs int
	if _, err := fmt.Sscanf(resp.Header.Get("Retry-After"), "%d", &secs); err != nil {
		return 0
	}
	return time.Duration(secs) * time.Second
}

// request builds a request to path (with query) carrying the token.
func (c *Client) request(ctx context.Context, method, path string, q url.Values, body []byte, contentType string) (*http.Request, error) {
	u := c.BaseURL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	switch {
	case c.Token != "":
		req.Header.Set("Authorization", "Bearer "+c.Token)
	case c.Key != nil && path != PathDID: // did.json is read unsigned: it names the audience
		aud, err := c.audience(ctx)
		if err != nil {
			return nil, err
		}
		if err := SignRequest(req, body, c.Key, aud, time.Now()); err != nil {
			return nil, err
		}
	}
	return req, nil
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// do sends req and returns the body of a 2xx answer, else an *Error.
func (c *Client) do(req *http.Request) ([]byte, http.Header, error) {
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, resp.Header, newError(resp.StatusCode, body)
	}
	return body, resp.Header, nil
}

func newError(status int, body []byte) *Error {
	e := &Error{Status: status, Body: body}
	_ = json.Unmarshal(body, &e.Problem)
	return e
}

// getJSON fetches path and decodes its JSON object.
func (c *Client) getJSON(ctx context.Context, path string) (map[string]any, error) {
	return c.doJSON(ctx, http.MethodGet, path, nil, "")
}

// doJSON sends body to path and decodes the JSON object answered.
func (c *Client) doJSON(ctx context.Context, method, path string, body []byte, contentType string) (map[string]any, error) {
	req, err := c.request(ctx, method, path, nil, body, contentType)
	if err != nil {
		return nil, err
	}
	answer, _, err := c.do(req)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(answer, &m); err != nil {
		return nil, fmt.Errorf("aqlstore client: %s: %w", path, err)
	}
	return m, nil
}
