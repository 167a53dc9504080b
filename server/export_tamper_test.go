package server

import (
	"context"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server/client"
)

// TestImportRefusesTamperedExports: an export changed in transit is
// refused with 422 before anything is stored. A changed signature, or any
// change the resolver did not sign (even one the export's own chain
// cannot show, such as dropping the put and the delete of a deleted
// document), fails the signature; an export re-signed by another did:key
// after a change is refused by the chain check, which names the first bad
// entry.
func TestImportRefusesTamperedExports(t *testing.T) {
	src := startServer(t, nil)
	ctx := context.Background()
	b := src.client(tokenB)
	var gone string
	for i, d := range []string{`{"offer_id": "o-1", "price": "1.00"}`, `{"node_id": "k-gone"}`, `{"node_id": "k-1"}`} {
		refs, err := b.Put(ctx, []byte(d), client.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			gone = refs[0].ID
		}
	}
	if err := b.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	export, err := b.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		tamper func(doc map[string]any) map[string]any
		detail string
	}{
		{"signature changed", func(doc map[string]any) map[string]any {
			sig := doc["signature"].(map[string]any)
			v := []byte(sig["value"].(string))
			v[5] ^= 1
			sig["value"] = string(v)
			return doc
		}, "signature does not verify"},
		{"put and delete of a deleted document dropped", func(doc map[string]any) map[string]any {
			var kept []any
			for _, r := range doc["receipts"].([]any) {
				rm := r.(map[string]any)
				if rm["hash_after"] != gone && rm["hash_before"] != gone {
					kept = append(kept, r)
				}
			}
			if len(kept) != len(doc["receipts"].([]any))-2 {
				t.Fatalf("fixture: %d receipts, two of them about %s", len(doc["receipts"].([]any)), gone)
			}
			doc["receipts"] = kept
			return doc
		}, "signature does not verify"},
		{"a body changed, then re-signed by another key", func(doc map[string]any) map[string]any {
			d := doc["documents"].([]any)[0].(map[string]any)
			d["body"].(map[string]any)["price"] = "0.01"
			doc["exporter_did"] = tenantB
			signed, err := sign.NewSigner(keyB).Sign(doc)
			if err != nil {
				t.Fatal(err)
			}
			return signed
		}, "document 1: body hashes to"},
	}
	dst := startServer(t, nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tampered := canon.AppendValue(nil, c.tamper(canonDoc(t, export)))
			status, header, body := dst.do("POST", pathImport, "application/json", tokenB, tampered)
			doc := dst.checkProblem(status, header, body, 422, "bad_export")
			if !strings.Contains(doc["detail"].(string), c.detail) {
				t.Fatalf("detail %q, want it to say %q", doc["detail"], c.detail)
			}
			if h := dst.st.Head(); h != 0 {
				t.Fatalf("a refused import left %d receipts", h)
			}
		})
	}
	// The control: the same export decoded and encoded again, untouched,
	// imports.
	if _, err := dst.client(tokenB).Import(ctx, canon.AppendValue(nil, canonDoc(t, export))); err != nil {
		t.Fatalf("the untouched export: %v", err)
	}
}
