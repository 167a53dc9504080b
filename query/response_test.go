package query

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/gowebpki/jcs"
)

// TestMarshalJSONIsSignedCanonical: the bytes a response is sent as are the
// RFC 8785 form (per jcs) of its signed document, and verify as they are,
// even where the intent wrote a number in another form (1.0e0).
func TestMarshalJSONIsSignedCanonical(t *testing.T) {
	s := openStore(t)
	putAll(t, s, context.Background(),
		shoeCandidate("b", "0.90", `"12.50"`, `,"stock":5`),
		shoeCandidate("ä—🏃", "0.5e0", `"15.00"`, `,"stock":20`),
		shoeCandidate("c", "1", `"9.00"`, `,"stock":0`))
	intent := strings.Replace(shoeIntent("ranked_set", ""), `"value":"shoes"}`,
		`"value":"shoes"},{"path":"/stock","operator":"gte","value":1.0e0}`, 1)
	resp := resolve(t, s, intent, nil)
	if len(resp.Candidates) != 2 || len(resp.Rejected) != 1 {
		t.Fatalf("%d candidates, %d rejected", len(resp.Candidates), len(resp.Rejected))
	}
	// The parser writes the intent's 1.0e0 as the number it denotes, 1.
	if !bytes.Contains(canon.AppendValue(nil, resp.Document()), []byte(`"path":"/stock","value":1}`)) {
		t.Fatal("the document does not hold the intent's 1.0e0 as 1")
	}
	b, err := resp.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want, err := jcs.Transform(canon.AppendValue(nil, resp.Document()))
	if err != nil || !bytes.Equal(b, want) {
		t.Fatalf("MarshalJSON\n%s\nwant the RFC 8785 form of Document()\n%s (%v)", b, want, err)
	}
	if err := sign.VerifyBytes(b, testSigner().PublicKey()); err != nil {
		t.Fatalf("VerifyBytes(MarshalJSON): %v", err)
	}
	if err := sign.Verify(resp.Document(), testSigner().PublicKey()); err != nil {
		t.Fatalf("Verify(Document): %v", err)
	}
	if again, _ := resp.MarshalJSON(); !bytes.Equal(again, b) {
		t.Error("MarshalJSON is not stable")
	}
}

// TestUnresolvedResponse: a Response built by hand, not by Resolve, has
// no document and is written as null, never as invalid JSON.
func TestUnresolvedResponse(t *testing.T) {
	r := &Response{ResponseID: "x"}
	if b, err := r.MarshalJSON(); err != nil || string(b) != "null" {
		t.Fatalf("MarshalJSON = %s, %v", b, err)
	}
	if r.Document() != nil {
		t.Fatal("a Document for a response Resolve did not make")
	}
}
