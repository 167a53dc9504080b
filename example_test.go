package aqlstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/aqlstore/aqlstore"
)

// The README's Go API section shows this example's body as it is
// (TestReadmeGoAPI keeps the two identical).
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "aqlstore-example")
	defer os.RemoveAll(dir)
	db, err := aqlstore.Open(dir, nil) // creates the store; nil: default options
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := aqlstore.WithPrincipal(context.Background(), "did:web:shop.example") // reads see public + own
	for _, offer := range []string{
		`{"offer_id":"o-1","category":"shoes","price":"80.00"}`,
		`{"offer_id":"o-2","category":"shoes","price":"120.00"}`,
	} {
		if _, err := db.Put(ctx, aqlstore.Document{Body: []byte(offer)}); err != nil { // durable on return
			log.Fatal(err)
		}
	}
	intent := `{"intent_id":"urn:oap:intent:cheap-shoes","issuer_did":"did:web:shop.example","category":"commercial",
	"constraints":[{"path":"/price","operator":"lte","value":"100.00"}],"projection":{"include":["/price"]},
	"validity":{"from":"2026-01-01T00:00:00Z","to":"2036-01-01T00:00:00Z"},
	"resolution_policy":"ranked_set","signature":{"alg":"EdDSA","value":"unsigned"}}`
	resp, err := db.Query(ctx, []byte(intent)) // a signed IntentResponse
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range resp.Candidates {
		fmt.Println(c.Rank, c.CandidateID)
	}
	// Output: 1 o-1
}

// tenant is the principal most examples act as.
var tenant = aqlstore.WithPrincipal(context.Background(), "did:web:shop.example")

// offers are the documents the examples store: two of the tenant's
// offers.
var offers = []aqlstore.Document{
	{Body: []byte(`{"offer_id":"o-1","category":"shoes","price":"80.00"}`)},
	{Body: []byte(`{"offer_id":"o-2","category":"boots","price":"120.00"}`)},
}

// cheapShoes is an intent for offers of shoes at 100.00 or less.
const cheapShoes = `{"intent_id":"urn:oap:intent:cheap-shoes","issuer_did":"did:web:shop.example",
	"category":"commercial","constraints":{"all_of":[
		{"path":"/category","operator":"eq","value":"shoes"},
		{"path":"/price","operator":"lte","value":"100.00"}]},
	"projection":{"include":["/offer_id","/price"]},
	"validity":{"from":"2026-01-01T00:00:00Z","to":"2036-01-01T00:00:00Z"},
	"resolution_policy":"ranked_set","signature":{"alg":"EdDSA","value":"unsigned"}}`

// openExample opens a DB in a new temporary directory holding offers; done
// closes it and removes the directory.
func openExample(opts *aqlstore.Options) (db *aqlstore.DB, done func()) {
	dir, err := os.MkdirTemp("", "aqlstore-example")
	if err != nil {
		log.Fatal(err)
	}
	if db, err = aqlstore.Open(dir, opts); err != nil {
		log.Fatal(err)
	}
	if _, err := db.PutBatch(tenant, offers); err != nil {
		log.Fatal(err)
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }
}

func ExampleDB_Put() {
	db, done := openExample(nil)
	defer done()
	doc := aqlstore.Document{Body: []byte(`{ "price": "95.00", "offer_id": "o-3", "category": "shoes" }`)}
	ref, err := db.Put(tenant, doc)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ref.Kind, ref.Owner, ref.Created)
	again, _ := db.Put(tenant, doc) // identical content: idempotent
	fmt.Println(again.ID == ref.ID, again.Created)
	_, err = db.Put(tenant, aqlstore.Document{Body: []byte(`{"offer_id":"o-3","price":"1.00"}`)})
	fmt.Println(errors.Is(err, aqlstore.ErrConflict))
	// Output:
	// offer did:web:shop.example true
	// true false
	// true
}

func ExampleDB_PutBatch() {
	db, done := openExample(nil)
	defer done()
	refs, err := db.PutBatch(tenant, []aqlstore.Document{
		{Body: []byte(`{"offer_id":"o-4","category":"socks","price":"5.00"}`)},
		{Body: []byte(`{"node_id":"k-1","title":"How to size running shoes"}`)},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range refs {
		fmt.Println(r.Num, r.Kind)
	}
	_, err = db.PutBatch(tenant, []aqlstore.Document{
		{Body: []byte(`{"offer_id":"o-5","price":"7.00"}`)},
		{Body: []byte(`{"offer_id":"o-6",`)}, // broken: nothing of the batch is stored
	})
	fmt.Println(err != nil)
	_, err = db.Lookup(tenant, "offer", "o-5")
	fmt.Println(errors.Is(err, aqlstore.ErrNotFound))
	// Output:
	// 3 offer
	// 4 knowledge
	// true
	// true
}

func ExampleDB_Get() {
	db, done := openExample(nil)
	defer done()
	ref, err := db.Put(tenant, aqlstore.Document{Body: []byte(`{"offer_id":"o-3", "price":"95.00"}`)})
	if err != nil {
		log.Fatal(err)
	}
	doc, err := db.Get(tenant, ref.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s\n", doc.Kind, doc.Body) // the canonical bytes (RFC 8785)
	other := aqlstore.WithPrincipal(context.Background(), "did:web:other.example")
	_, err = db.Get(other, ref.ID) // another tenant's document reads as absent
	fmt.Println(errors.Is(err, aqlstore.ErrNotFound))
	// Output:
	// offer {"offer_id":"o-3","price":"95.00"}
	// true
}

func ExampleDB_Lookup() {
	db, done := openExample(nil)
	defer done()
	doc, err := db.Lookup(tenant, "offer", "o-2") // kind and natural key
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", doc.Body)
	_, err = db.Lookup(tenant, "offer", "o-9")
	fmt.Println(errors.Is(err, aqlstore.ErrNotFound))
	// Output:
	// {"category":"boots","offer_id":"o-2","price":"120.00"}
	// true
}

func ExampleDB_Delete() {
	db, done := openExample(nil)
	defer done()
	doc, err := db.Lookup(tenant, "offer", "o-1")
	if err != nil {
		log.Fatal(err)
	}
	if err := db.Delete(tenant, doc.ID); err != nil {
		log.Fatal(err)
	}
	_, err = db.Get(tenant, doc.ID)
	fmt.Println(errors.Is(err, aqlstore.ErrNotFound))
	fmt.Println(errors.Is(db.Delete(tenant, doc.ID), aqlstore.ErrNotFound)) // already gone
	// Output:
	// true
	// true
}

func ExampleDB_Query() {
	db, done := openExample(nil)
	defer done()
	resp, err := db.Query(tenant, []byte(cheapShoes))
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range resp.Candidates {
		fmt.Println(c.Rank, c.CandidateID, c.Record.Outcome)
	}
	fmt.Println(resp.RejectedTotal, "rejected")
	// Public reads only public documents: the tenant's offers are not
	// among them.
	resp, err = db.Query(context.Background(), []byte(cheapShoes))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(resp.Candidates), "candidates for public")
	// Output:
	// 1 o-1 accept
	// 1 rejected
	// 0 candidates for public
}

func ExampleDB_Explain() {
	db, done := openExample(nil)
	defer done()
	plan, err := db.Explain(tenant, []byte(cheapShoes))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(plan.Shape()) // plan.String() adds the time per node
	// Output:
	// candidates 1 of 2
	// bitmap.And exact act=1
	//   index.Eq(/category = "shoes") exact act=1
	//   index.Range(/price ≤ "100.00") exact act=1
}

func ExampleDB_Subscribe() {
	db, done := openExample(nil)
	defer done()
	ctx, cancel := context.WithCancel(tenant)
	defer cancel()
	for c, err := range db.Subscribe(ctx, 0) { // 0: from the first change
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(c.Seq, c.Op, c.Kind, c.Owner)
		if c.Seq == 2 {
			break // or wait for the next change
		}
	}
	// Output:
	// 1 put offer did:web:shop.example
	// 2 put offer did:web:shop.example
}

func ExampleDB_Principal() {
	db, done := openExample(&aqlstore.Options{Principal: "did:web:shop.example"})
	defer done()
	fmt.Println(db.Principal(context.Background())) // Options.Principal
	fmt.Println(db.Principal(aqlstore.WithPrincipal(context.Background(), "public")))
	// Output:
	// did:web:shop.example
	// public
}

func ExampleDB_Close() {
	db, done := openExample(nil)
	defer done()
	if err := db.Close(); err != nil {
		log.Fatal(err)
	}
	_, err := db.Lookup(tenant, "offer", "o-1")
	fmt.Println(errors.Is(err, aqlstore.ErrClosed))
	// Output: true
}

func ExampleDB_Store() {
	db, done := openExample(nil)
	defer done()
	st, err := db.Store().Stats(context.Background()) // what DB does not wrap
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Documents, "documents")
	// Output: 2 documents
}

func ExampleDB_Export() {
	db, done := openExample(nil)
	defer done()
	b, err := db.Export(tenant) // the tenant's documents and receipts, signed
	if err != nil {
		log.Fatal(err)
	}
	var export struct {
		Owner     string            `json:"owner"`
		Documents []json.RawMessage `json:"documents"`
		Receipts  []json.RawMessage `json:"receipts"`
	}
	if err := json.Unmarshal(b, &export); err != nil {
		log.Fatal(err)
	}
	fmt.Println(export.Owner, len(export.Documents), "documents", len(export.Receipts), "receipts")
	// Output: did:web:shop.example 2 documents 2 receipts
}

func ExampleDB_Import() {
	from, done := openExample(nil)
	defer done()
	export, err := from.Export(tenant)
	if err != nil {
		log.Fatal(err)
	}
	to, doneTo := openExample(nil)
	defer doneTo()
	if err := to.Delete(tenant, mustLookup(to, "o-1").ID); err != nil {
		log.Fatal(err)
	}
	rep, err := to.Import(tenant, export) // o-2 is there already: kept
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(rep.Refs), "documents imported")
	fmt.Printf("%s\n", mustLookup(to, "o-1").Body)
	// Output:
	// 2 documents imported
	// {"category":"shoes","offer_id":"o-1","price":"80.00"}
}

func mustLookup(db *aqlstore.DB, key string) *aqlstore.StoredDoc {
	doc, err := db.Lookup(tenant, "offer", key)
	if err != nil {
		log.Fatal(err)
	}
	return doc
}
