package aqlstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aqlstore/aqlstore"
	"github.com/aqlstore/aqlstore/query/sign"
)

func openTest(t *testing.T, opts *aqlstore.Options) *aqlstore.DB {
	t.Helper()
	if opts == nil {
		opts = &aqlstore.Options{}
	}
	opts.Store.NoSync = true
	db, err := aqlstore.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func candidates(t *testing.T, db *aqlstore.DB, ctx context.Context) string {
	t.Helper()
	resp, err := db.Query(ctx, []byte(cheapShoes))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range resp.Candidates {
		ids = append(ids, c.CandidateID)
	}
	return strings.Join(ids, " ")
}

// A tenant's own documents answer its queries, whether the principal comes
// from the context or from Options.Principal; another tenant's and public
// do not see them.
func TestQueryReadsAsPrincipal(t *testing.T) {
	db := openTest(t, nil)
	if _, err := db.PutBatch(tenant, offers); err != nil {
		t.Fatal(err)
	}
	if got := candidates(t, db, tenant); got != "o-1" {
		t.Errorf("the tenant's query found %q, want its own o-1", got)
	}
	other := aqlstore.WithPrincipal(context.Background(), "did:web:other.example")
	if got := candidates(t, db, other); got != "" {
		t.Errorf("another tenant found %q", got)
	}
	if got := candidates(t, db, context.Background()); got != "" {
		t.Errorf("public found %q", got)
	}
	db.Close()

	dflt := openTest(t, &aqlstore.Options{Principal: "did:web:shop.example"})
	if _, err := dflt.PutBatch(context.Background(), offers); err != nil {
		t.Fatal(err)
	}
	if got := candidates(t, dflt, context.Background()); got != "o-1" {
		t.Errorf("with Options.Principal the query found %q, want o-1", got)
	}
	public := aqlstore.WithPrincipal(context.Background(), "public")
	if got := candidates(t, dflt, public); got != "" {
		t.Errorf("an explicitly public context found %q", got)
	}
}

func TestPrincipalMustBeADID(t *testing.T) {
	_, err := aqlstore.Open(t.TempDir(), &aqlstore.Options{Principal: "shop.example"})
	if !errors.Is(err, aqlstore.ErrInvalidOptions) || !strings.Contains(err.Error(), "did:web:") {
		t.Errorf("Open with Principal shop.example: %v, want ErrInvalidOptions showing what a DID looks like", err)
	}
	db := openTest(t, nil)
	_, err = db.Put(aqlstore.WithPrincipal(context.Background(), "notadid"), offers[0])
	if !errors.Is(err, aqlstore.ErrInvalidPrincipal) {
		t.Errorf("Put as notadid: %v, want ErrInvalidPrincipal", err)
	}
}

func TestReadOnly(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "typo")
	if _, err := aqlstore.Open(missing, &aqlstore.Options{ReadOnly: true}); !errors.Is(err, aqlstore.ErrNoStore) {
		t.Fatalf("read-only open of a missing store: %v, want ErrNoStore", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("a read-only open created %s", missing)
	}
	dir := t.TempDir()
	db, err := aqlstore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutBatch(tenant, offers); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Query(tenant, []byte(cheapShoes)); err != nil { // creates the key
		t.Fatal(err)
	}
	db.Close()
	ro, err := aqlstore.Open(dir, &aqlstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if got := candidates(t, ro, tenant); got != "o-1" {
		t.Errorf("read-only query found %q", got)
	}
	if _, err := ro.Put(tenant, aqlstore.Document{Body: []byte(`{"offer_id":"o-9"}`)}); err == nil {
		t.Error("a read-only DB accepted a put")
	}
}

// The signing key is created on the first query, in the file the CLI
// uses, and signs the response.
func TestSignerCreatedOnFirstQuery(t *testing.T) {
	dir := t.TempDir()
	db, err := aqlstore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.PutBatch(tenant, offers); err != nil {
		t.Fatal(err)
	}
	keyFile := aqlstore.DefaultKeyFile(dir)
	if keyFile != filepath.Join(dir, "keys", "resolver.jwk") {
		t.Fatalf("DefaultKeyFile = %s, not where the CLI keeps the key", keyFile)
	}
	if _, err := os.Stat(keyFile); !os.IsNotExist(err) {
		t.Fatalf("the key exists before any query (%v)", err)
	}
	resp, err := db.Query(tenant, []byte(cheapShoes))
	if err != nil {
		t.Fatal(err)
	}
	priv, created, err := sign.LoadOrCreateKey(keyFile)
	if err != nil || created {
		t.Fatalf("key file after the first query: created=%v, %v", created, err)
	}
	signer := sign.NewSigner(priv)
	if resp.ResolverDID != signer.DID() {
		t.Errorf("response resolver_did %s, key file's %s", resp.ResolverDID, signer.DID())
	}
	pub, err := sign.ParseDIDKey(signer.DID())
	if err != nil {
		t.Fatal(err)
	}
	if err := sign.Verify(resp.Document(), pub); err != nil {
		t.Errorf("the response does not verify under the key file's key: %v", err)
	}
}

// A subscriber sees its own and public changes, not another tenant's,
// waits for new ones, and ends with ErrClosed when the DB closes.
func TestSubscribe(t *testing.T) {
	db := openTest(t, nil)
	other := aqlstore.WithPrincipal(context.Background(), "did:web:other.example")
	if _, err := db.Put(other, aqlstore.Document{Body: []byte(`{"offer_id":"secret"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Put(tenant, offers[0]); err != nil {
		t.Fatal(err)
	}
	got := make(chan aqlstore.Change)
	ended := make(chan error, 1)
	go func() {
		for c, err := range db.Subscribe(tenant, 0) {
			if err != nil {
				ended <- err
				return
			}
			got <- c
		}
		ended <- nil
	}()
	if c := <-got; c.Seq != 2 || c.Op != "put" || c.Owner != "did:web:shop.example" {
		t.Fatalf("first change %+v, want the tenant's put (seq 2): the other tenant's seq 1 is not its to see", c)
	}
	if _, err := db.Put(context.Background(), aqlstore.Document{Body: []byte(`{"offer_id":"public-1"}`)}); err != nil {
		t.Fatal(err)
	}
	if c := <-got; c.Seq != 3 || c.Owner != "public" {
		t.Fatalf("after waiting: %+v, want the public put (seq 3)", c)
	}
	db.Close()
	if err := <-ended; !errors.Is(err, aqlstore.ErrClosed) {
		t.Fatalf("subscription ended with %v, want ErrClosed", err)
	}
}

// Calls racing Close return ErrClosed, never a panic from the closed
// database underneath.
func TestCallsRacingClose(t *testing.T) {
	db := openTest(t, nil)
	if _, err := db.PutBatch(tenant, offers); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if _, err := db.Lookup(tenant, "offer", "o-1"); err != nil {
					if !errors.Is(err, aqlstore.ErrClosed) {
						t.Errorf("lookup: %v", err)
					}
					return
				}
			}
		}()
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := db.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	bad := aqlstore.Options{}
	bad.Store.BlobCompression = "lz4"
	if _, err := aqlstore.Open(t.TempDir(), &bad); !errors.Is(err, aqlstore.ErrInvalidOptions) || !strings.Contains(err.Error(), "lz4") {
		t.Errorf("Open with BlobCompression lz4: %v, want ErrInvalidOptions naming it", err)
	}
	var o aqlstore.Options
	o.EnsureDefaults()
	if o.Now == nil || o.Store.CacheSize == 0 {
		t.Errorf("EnsureDefaults left Now or Store.CacheSize unset: %+v", o)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
	for _, p := range []string{"", "public", "did:web:shop.example"} {
		o.Principal = p
		if err := o.Validate(); err != nil {
			t.Errorf("Principal %q: %v", p, err)
		}
	}
}
