package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// Paths of the server's endpoints.
const (
	PathIntent    = "/oap/intent"
	PathDocuments = "/storage/documents"
	PathSubscribe = "/storage/subscribe"
	PathExport    = "/storage/export"
	PathImport    = "/storage/import"
	PathDID       = "/.well-known/did.json"
	PathManifest  = "/.well-known/oap-tool.json"
)

// Intent posts an intent and returns the signed IntentResponse bytes. A
// refused intent is an *Error whose Body is the signed error document.
func (c *Client) Intent(ctx context.Context, intent []byte) ([]byte, error) {
	req, err := c.request(ctx, http.MethodPost, PathIntent, nil, intent, "application/oap+json")
	if err != nil {
		return nil, err
	}
	body, _, err := c.do(req)
	return body, err
}

// Ref names a stored document, as put reports it.
type Ref struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Owner string `json:"owner"`
	// Created is false when the tenant already stored this content (an
	// idempotent put).
	Created bool `json:"created"`
}

// PutOptions tune Put.
type PutOptions struct {
	Kind   string // "" detects the kind
	Public bool   // store as a public document (public writers only)
	NDJSON bool   // body is one document per line, committed together
}

// Put stores a document (or, with NDJSON, many) and returns their refs.
func (c *Client) Put(ctx context.Context, body []byte, o PutOptions) ([]Ref, error) {
	q := url.Values{}
	if o.Kind != "" {
		q.Set("kind", o.Kind)
	}
	if o.Public {
		q.Set("visibility", "public")
	}
	ct := "application/json"
	if o.NDJSON {
		ct = "application/x-ndjson"
	}
	req, err := c.request(ctx, http.MethodPost, PathDocuments, q, body, ct)
	if err != nil {
		return nil, err
	}
	resp, _, err := c.do(req)
	if err != nil {
		return nil, err
	}
	var out struct {
		Documents []Ref `json:"documents"`
	}
	if err := json.Unmarshal(resp, &out); err != nil {
		return nil, fmt.Errorf("aqlstore client: put: %w", err)
	}
	return out.Documents, nil
}

// Get returns the document with content id id: its canonical bytes, or
// with include/exclude pointers the signed projection document.
func (c *Client) Get(ctx context.Context, id string, include, exclude []string) ([]byte, error) {
	q := url.Values{"include": include, "exclude": exclude}
	req, err := c.request(ctx, http.MethodGet, PathDocuments+"/"+url.PathEscape(id), q, nil, "")
	if err != nil {
		return nil, err
	}
	body, _, err := c.do(req)
	return body, err
}

// Lookup returns the document of kind whose natural key is key.
func (c *Client) Lookup(ctx context.Context, kind, key string) ([]byte, error) {
	req, err := c.request(ctx, http.MethodGet, PathDocuments, url.Values{"kind": {kind}, "key": {key}}, nil, "")
	if err != nil {
		return nil, err
	}
	body, _, err := c.do(req)
	return body, err
}

// Delete deletes the caller's document with content id id.
func (c *Client) Delete(ctx context.Context, id string) error {
	req, err := c.request(ctx, http.MethodDelete, PathDocuments+"/"+url.PathEscape(id), nil, nil, "")
	if err != nil {
		return err
	}
	_, _, err = c.do(req)
	return err
}

// Grant lets tenant grantee read the caller's document id; Revoke
// withdraws it. Both are idempotent.
func (c *Client) Grant(ctx context.Context, id, grantee string) error {
	return c.changeGrant(ctx, http.MethodPut, id, grantee)
}

// Revoke withdraws what Grant gave.
func (c *Client) Revoke(ctx context.Context, id, grantee string) error {
	return c.changeGrant(ctx, http.MethodDelete, id, grantee)
}

func (c *Client) changeGrant(ctx context.Context, method, id, grantee string) error {
	req, err := c.request(ctx, method, grantsPath(id)+"/"+url.PathEscape(grantee), nil, nil, "")
	if err != nil {
		return err
	}
	_, _, err = c.do(req)
	return err
}

// Grantees returns the signed {content_id, grantees} of the caller's
// document id.
func (c *Client) Grantees(ctx context.Context, id string) ([]byte, error) {
	req, err := c.request(ctx, http.MethodGet, grantsPath(id), nil, nil, "")
	if err != nil {
		return nil, err
	}
	body, _, err := c.do(req)
	return body, err
}

func grantsPath(id string) string { return PathDocuments + "/" + url.PathEscape(id) + "/grants" }

// Export returns the signed export of the caller's tenant.
func (c *Client) Export(ctx context.Context) ([]byte, error) {
	req, err := c.request(ctx, http.MethodGet, PathExport, nil, nil, "")
	if err != nil {
		return nil, err
	}
	body, _, err := c.do(req)
	return body, err
}

// Import imports a signed export into the caller's tenant and returns the
// server's signed report.
func (c *Client) Import(ctx context.Context, export []byte) (map[string]any, error) {
	return c.doJSON(ctx, http.MethodPost, PathImport, export, "application/json")
}

// Manifest returns /.well-known/oap-tool.json.
func (c *Client) Manifest(ctx context.Context) (map[string]any, error) {
	return c.getJSON(ctx, PathManifest)
}

// DIDDocument returns /.well-known/did.json.
func (c *Client) DIDDocument(ctx context.Context) (map[string]any, error) {
	return c.getJSON(ctx, PathDID)
}
