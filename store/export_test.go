package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

func openExportStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func putAs(t *testing.T, s *Store, owner, body string) Ref {
	t.Helper()
	ref, err := s.Put(WithPrincipal(context.Background(), owner), Document{Body: []byte(body)})
	if err != nil {
		t.Fatalf("put %s: %v", body, err)
	}
	return ref
}

// exportFixture is a store where tenant A and tenant B interleave puts and
// deletes, so that the store's chain interleaves their receipts.
func exportFixture(t *testing.T) (*Store, *Export) {
	t.Helper()
	s := openExportStore(t)
	const a, b = "did:web:a.example", "did:web:b.example"
	putAs(t, s, a, `{"offer_id":"a-1","price":"1.00"}`)
	putAs(t, s, b, `{"offer_id":"b-1","secret":true}`)
	gone := putAs(t, s, a, `{"node_id":"a-k","text":"to be deleted"}`)
	putAs(t, s, a, `{"id":"a-cand","score":0.5,"cost":{"amount":"2.50","currency":"EUR"},"record":{"name":"x"}}`)
	putAs(t, s, a, `{"free":"json"}`)
	if err := s.Delete(WithPrincipal(context.Background(), a), gone); err != nil {
		t.Fatal(err)
	}
	putAs(t, s, b, `{"offer_id":"b-2"}`)
	e, err := s.Export(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return s, e
}

func TestExportHoldsOnlyTheTenant(t *testing.T) {
	_, e := exportFixture(t)
	if len(e.Documents) != 3 || len(e.Receipts) != 5 {
		t.Fatalf("%d documents, %d receipts; want 3, 5", len(e.Documents), len(e.Receipts))
	}
	for _, d := range e.Documents {
		if strings.Contains(string(d.Body), "b-") {
			t.Errorf("another tenant's document in the export: %s", d.Body)
		}
	}
	for _, r := range e.Receipts {
		if r.Owner != e.Owner {
			t.Errorf("receipt %d of owner %s in %s's export", r.Seq, r.Owner, e.Owner)
		}
	}
	if err := VerifyExport(e); err != nil {
		t.Fatal(err)
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	_, e := exportFixture(t)
	dst := openExportStore(t)
	ctx := WithPrincipal(context.Background(), e.Owner)
	rep, err := dst.Import(ctx, e, e.Owner, Migration{ExportDigest: strings.Repeat("ab", 32)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refs) != 3 || rep.Receipt != 4 {
		t.Fatalf("report %+v", rep)
	}
	cand, err := dst.Lookup(ctx, canon.KindCandidate, "a-cand")
	if err != nil || cand.Signals == nil || cand.Signals.Cost.Amount != "2.50" || string(cand.Body) != `{"name":"x"}` {
		t.Fatalf("candidate after import: %+v %v", cand, err)
	}
	var last *Receipt
	_ = dst.Receipts(ctx, 1, func(r *Receipt) error { last = r; return nil })
	if last.Op != OpImport || last.HashAfter != strings.Repeat("ab", 32) || last.HashBefore != hashHex(e.Receipts[4].Bytes) {
		t.Fatalf("migration receipt %+v", last)
	}
	if rep, err := dst.Verify(ctx); err != nil || !rep.OK() {
		t.Fatalf("verify after import: %v %v", err, rep.Problems)
	}
	// Importing again is idempotent for the documents.
	if rep, err := dst.Import(ctx, e, e.Owner, Migration{}); err != nil || len(rep.Refs) != 3 {
		t.Fatalf("second import: %v", err)
	}
	// The destination's own export verifies, migration receipts included.
	e2, err := dst.Export(ctx, e.Owner)
	if err != nil || VerifyExport(e2) != nil || len(e2.Documents) != 3 {
		t.Fatalf("re-export: %v %v", err, VerifyExport(e2))
	}
}

func TestVerifyExportRefusesTampering(t *testing.T) {
	cases := map[string]func(e *Export){
		"body changed":     func(e *Export) { e.Documents[0].Body = []byte(`{"offer_id":"a-1","price":"0.01"}`) },
		"document dropped": func(e *Export) { e.Documents = e.Documents[1:] },
		"receipt dropped":  func(e *Export) { e.Receipts = append(e.Receipts[:1:1], e.Receipts[2:]...) },
		"receipt reordered": func(e *Export) {
			e.Receipts[0], e.Receipts[1] = e.Receipts[1], e.Receipts[0]
		},
		"receipt bytes changed": func(e *Export) {
			e.Receipts[0].Bytes = []byte(strings.Replace(string(e.Receipts[0].Bytes), `"put"`, `"PUT"`, 1))
		},
		"foreign owner": func(e *Export) { e.Owner = "did:web:b.example" },
		"prev broken": func(e *Export) {
			r := &e.Receipts[2]
			r.Prev = strings.Repeat("1", 64)
			r.Bytes = r.appendJSON(nil)
		},
	}
	for name, tamper := range cases {
		t.Run(name, func(t *testing.T) {
			_, e := exportFixture(t)
			tamper(e)
			if err := VerifyExport(e); !errors.Is(err, ErrBadExport) {
				t.Fatalf("VerifyExport = %v, want ErrBadExport", err)
			}
		})
	}
}

func TestExportReceiptRefusesNonCanonical(t *testing.T) {
	_, e := exportFixture(t)
	if _, err := ExportReceipt(e.Receipts[0].Bytes); err != nil {
		t.Fatal(err)
	}
	spaced := append([]byte(" "), e.Receipts[0].Bytes...)
	if _, err := ExportReceipt(spaced); err == nil {
		t.Fatal("non-canonical receipt bytes accepted")
	}
}

// TestExportCountsNoOtherTenant: tenant A's export is the same whether or
// not tenant B wrote between A's writes: the owner chain, the documents'
// seqs and every byte of the receipts depend on A's history alone.
func TestExportCountsNoOtherTenant(t *testing.T) {
	const a, b = "did:web:a.example", "did:web:b.example"
	history := func(s *Store, withB bool) *Export {
		t.Helper()
		noise := func(i int) {
			if withB {
				for j := range i {
					putAs(t, s, b, `{"offer_id":"b-`+strconv.Itoa(i)+`-`+strconv.Itoa(j)+`"}`)
				}
			}
		}
		noise(3)
		putAs(t, s, a, `{"offer_id":"a-1","price":"1.00"}`)
		noise(2)
		gone := putAs(t, s, a, `{"node_id":"a-k","text":"to be deleted"}`)
		noise(5)
		putAs(t, s, a, `{"free":"json"}`)
		if err := s.Delete(WithPrincipal(context.Background(), a), gone); err != nil {
			t.Fatal(err)
		}
		noise(1)
		e, err := s.Export(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyExport(e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	alone, shared := history(openExportStore(t), false), history(openExportStore(t), true)
	if len(alone.Receipts) != 4 || len(shared.Receipts) != len(alone.Receipts) || len(shared.Documents) != len(alone.Documents) {
		t.Fatalf("alone: %d receipts, %d documents; shared: %d, %d", len(alone.Receipts), len(alone.Documents),
			len(shared.Receipts), len(shared.Documents))
	}
	for i := range alone.Receipts {
		if !bytes.Equal(alone.Receipts[i].Bytes, shared.Receipts[i].Bytes) {
			t.Errorf("receipt %d:\n alone  %s\n shared %s", i+1, alone.Receipts[i].Bytes, shared.Receipts[i].Bytes)
		}
	}
	for i := range alone.Documents {
		if d, e := alone.Documents[i], shared.Documents[i]; d.Seq != e.Seq || d.ID != e.ID {
			t.Errorf("document %d: alone seq %d %s, shared seq %d %s", i, d.Seq, d.ID, e.Seq, e.ID)
		}
	}
}

// TestGrantReceipts: a grant or revoke that changes something appends a
// receipt to the owner chain naming the document and the grantee; one
// that changes nothing appends none; the grants a delete drops go with
// the delete receipt. The export verifies and imports.
func TestGrantReceipts(t *testing.T) {
	const a, b = "did:web:a.example", "did:web:b.example"
	s := openExportStore(t)
	ctx := WithPrincipal(context.Background(), a)
	ref := putAs(t, s, a, `{"offer_id":"a-1","price":"1.00"}`)
	kept := putAs(t, s, a, `{"offer_id":"a-2","price":"2.00"}`)
	steps := []struct {
		do   func() error
		want string // the op appended, "" for none
	}{
		{func() error { return s.Grant(ctx, Ref{ID: ref.ID}, b) }, OpGrant},
		{func() error { return s.Grant(ctx, Ref{ID: ref.ID}, b) }, ""},
		{func() error { return s.Grant(ctx, Ref{ID: kept.ID}, b) }, OpGrant},
		{func() error { return s.Revoke(ctx, Ref{ID: kept.ID}, b) }, OpRevoke},
		{func() error { return s.Revoke(ctx, Ref{ID: kept.ID}, b) }, ""},
		{func() error { return s.Delete(ctx, ref) }, "delete"},
	}
	for i, st := range steps {
		head := s.Head()
		if err := st.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		var got []*Receipt
		if err := s.Receipts(ctx, head+1, func(r *Receipt) error { got = append(got, r); return nil }); err != nil {
			t.Fatal(err)
		}
		switch {
		case st.want == "" && len(got) != 0:
			t.Fatalf("step %d changed nothing but appended %+v", i, got[0])
		case st.want != "" && (len(got) != 1 || got[0].Op != st.want):
			t.Fatalf("step %d appended %d receipts, want one %s", i, len(got), st.want)
		case st.want == OpGrant || st.want == OpRevoke:
			if r := got[0]; r.Grantee != GranteeHash(b) || r.Owner != a || r.HashBefore != r.HashAfter || r.Principal != a {
				t.Fatalf("step %d: receipt %+v", i, r)
			}
		}
	}
	e, err := s.Export(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	ops := ""
	for _, r := range e.Receipts {
		ops += r.Op + fmt.Sprintf("(%d) ", r.Doc)
	}
	if ops != "put(1) put(2) grant(1) grant(2) revoke(2) delete(1) " {
		t.Fatalf("owner chain: %s", ops)
	}
	if err := VerifyExport(e); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.Verify(context.Background()); err != nil || !rep.OK() {
		t.Fatalf("verify: %v %v", err, rep.Problems)
	}
	// A grant of a document the chain never put, or with no grantee, is refused.
	for name, edit := range map[string]func(r *OwnerReceipt){
		"no grantee":    func(r *OwnerReceipt) { r.Grantee = "" },
		"dead document": func(r *OwnerReceipt) { r.Doc = 9 },
		"other content": func(r *OwnerReceipt) { r.HashAfter = strings.Repeat("ab", 32) },
	} {
		bad := *e
		bad.Receipts = append([]ExportedReceipt(nil), e.Receipts...)
		r := bad.Receipts[2].OwnerReceipt
		edit(&r)
		bad.Receipts[2] = ExportedReceipt{OwnerReceipt: r, Bytes: r.appendJSON(nil)}
		// Relink the rest, as a forger would.
		for i := 3; i < len(bad.Receipts); i++ {
			o := bad.Receipts[i].OwnerReceipt
			o.Prev = hashHex(bad.Receipts[i-1].Bytes)
			bad.Receipts[i] = ExportedReceipt{OwnerReceipt: o, Bytes: o.appendJSON(nil)}
		}
		if err := VerifyExport(&bad); !errors.Is(err, ErrBadExport) || !strings.Contains(err.Error(), "receipt 3") {
			t.Errorf("%s: VerifyExport = %v, want receipt 3 refused", name, err)
		}
	}
	dst := openExportStore(t)
	if _, err := dst.Import(WithPrincipal(context.Background(), a), e, a, Migration{}); err != nil {
		t.Fatalf("import: %v", err)
	}
}
