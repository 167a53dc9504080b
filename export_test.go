package aqlstore_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server"
	"github.com/aqlstore/aqlstore/store"
)

func TestExportImportRefusals(t *testing.T) {
	from := openTest(t, nil)
	if _, err := from.PutBatch(tenant, offers); err != nil {
		t.Fatal(err)
	}
	export, err := from.Export(tenant)
	if err != nil {
		t.Fatal(err)
	}
	to := openTest(t, nil)
	other := aqlstore.WithPrincipal(context.Background(), "did:web:other.example")
	for name, c := range map[string]struct {
		ctx  context.Context
		b    []byte
		want string
	}{
		"not JSON":       {tenant, []byte(`{"owner":`), "not a JSON object"},
		"another owner":  {other, export, "belongs to did:web:shop.example"},
		"changed body":   {tenant, bytes.Replace(export, []byte(`"80.00"`), []byte(`"1.00"`), 1), "signature does not verify"},
		"unsigned":       {tenant, []byte(`{"owner":"did:web:shop.example"}`), "signature does not verify"},
		"public's own":   {context.Background(), export, "not public"},
		"bad principal!": {aqlstore.WithPrincipal(context.Background(), "shop"), export, "not a DID"},
	} {
		_, err := to.Import(c.ctx, c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
		if name != "bad principal!" && !errors.Is(err, aqlstore.ErrBadExport) {
			t.Errorf("%s: %v is not ErrBadExport", name, err)
		}
	}
	if _, err := to.Lookup(tenant, "offer", "o-1"); !errors.Is(err, aqlstore.ErrNotFound) {
		t.Errorf("a refused import stored something: %v", err)
	}
}

// An export from a DB imports into the server, and the server's export
// imports into a DB: one form.
func TestExportFormIsTheServers(t *testing.T) {
	db := openTest(t, nil)
	if _, err := db.PutBatch(tenant, offers); err != nil {
		t.Fatal(err)
	}
	export, err := db.Export(tenant)
	if err != nil {
		t.Fatal(err)
	}
	s, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const token = "tenant-token-0123456789"
	auth, err := server.NewAuth(map[string]string{token: "did:web:shop.example"})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: s, Index: ix, Auth: auth,
		Signer: sign.NewSigner(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, 32)))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	send := func(method, path string, body []byte) (int, []byte) {
		req, _ := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, body := send("POST", "/storage/import", export); code != 200 {
		t.Fatalf("the server refused a DB's export: %d %s", code, body)
	}
	code, serverExport := send("GET", "/storage/export", nil)
	if code != 200 {
		t.Fatalf("server export: %d %s", code, serverExport)
	}
	to := openTest(t, nil)
	rep, err := to.Import(tenant, serverExport)
	if err != nil {
		t.Fatalf("a DB refused the server's export: %v", err)
	}
	if len(rep.Refs) != 2 {
		t.Errorf("imported %d documents, want 2", len(rep.Refs))
	}
	if doc, err := to.Lookup(tenant, "offer", "o-2"); err != nil || !strings.Contains(string(doc.Body), "120.00") {
		t.Errorf("o-2 after the round trip: %v", err)
	}
}
