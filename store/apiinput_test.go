package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// TestPutSignalsChecked: signals given beside a document
// (Document.Signals) are checked and stored canonical, as those of the
// candidate shape are; bad ones are refused as invalid, naming the
// field and the member, and nothing of the batch is stored.
func TestPutSignalsChecked(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	ref, err := s.Put(ctx, Document{Body: []byte(`{"a":1}`), Signals: &canon.Signals{Score: "1.50", Cost: &canon.Cost{Amount: "2.00"}}})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := s.Get(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Signals == nil || doc.Signals.Score != "1.5" || doc.Signals.Cost == nil || doc.Signals.Cost.Amount != "2.00" {
		t.Fatalf("stored signals %+v, want score 1.5 and cost 2.00", doc.Signals)
	}
	before, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []canon.Signals{{Score: "abc"}, {Score: "1e999999999999"}, {Cost: &canon.Cost{Amount: "1e3"}}} {
		batch := []Document{{Body: []byte(`{"a":2}`)}, {Body: []byte(`{"a":3}`), Signals: &sig}}
		_, err := s.PutBatch(ctx, batch)
		var be *BatchError
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &be) || be.Index != 1 || !strings.Contains(err.Error(), "Document.Signals") {
			t.Errorf("signals %+v: %v, want ErrInvalid for document 1 naming Document.Signals", sig, err)
		}
		dry := s.DryRun(ctx)
		if _, err := dry.Put(batch[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("dry run, signals %+v: %v, want ErrInvalid", sig, err)
		}
		dry.Close()
	}
	after, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Documents != before.Documents || after.Receipts != before.Receipts {
		t.Fatalf("refused batches stored something: %d documents and %d receipts, want %d and %d",
			after.Documents, after.Receipts, before.Documents, before.Receipts)
	}
}

// TestPutRefusesHandMadeParsed: a Document.Parsed that ParseDocument did
// not make is refused, not stored with bytes nobody checked (here: not
// JSON, not canonical, of no kind); one it made is stored.
func TestPutRefusesHandMadeParsed(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	for _, p := range []*Parsed{
		{Document: canon.Document{Kind: canon.KindJSON, Canonical: []byte(`{bad`)}},
		{Document: canon.Document{Kind: canon.KindJSON, Canonical: []byte(`{"b":1,"a":2}`)}},
		{Document: canon.Document{Kind: "nonsense", Canonical: []byte(`{"a":2}`)}},
	} {
		if _, err := s.Put(ctx, Document{Parsed: p}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "Document.Parsed") {
			t.Errorf("Put of a hand-made Parsed %q: %v, want ErrInvalid naming Document.Parsed", p.Canonical, err)
		}
		dry := s.DryRun(ctx)
		if _, err := dry.Put(Document{Parsed: p}); !errors.Is(err, ErrInvalid) {
			t.Errorf("dry run of a hand-made Parsed %q: %v, want ErrInvalid", p.Canonical, err)
		}
		dry.Close()
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Documents != 0 {
		t.Fatalf("%d documents stored, want none", st.Documents)
	}
	p, err := s.Parse([]byte(`{"b":1, "a":2}`), "")
	if err != nil {
		t.Fatal(err)
	}
	withSignals := Document{Parsed: p, Signals: &canon.Signals{Score: "2.0"}}
	if _, err := s.Put(ctx, withSignals); err != nil {
		t.Fatalf("Put of a parsed document with signals: %v", err)
	}
}

// TestNilArguments: a nil bitmap of numbers is no documents, as a nil
// slice is no elements, and a nil export is a bad export, not a panic.
func TestNilArguments(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	mustPut(t, s, ctx, `{"a":1}`)
	for name, docs := range map[string]func(yield func(*StoredDoc, error) bool){
		"Fetch":        s.Fetch(ctx, nil, false),
		"FetchKeeping": s.FetchKeeping(ctx, nil, true, nil),
		"FetchLent":    s.FetchLent(ctx, nil, false, nil),
	} {
		for doc, err := range docs {
			t.Errorf("%s(nil) yielded %v, %v; want nothing", name, doc, err)
		}
	}
	for h, err := range s.Headers(ctx, nil) {
		t.Errorf("Headers(nil) yielded %v, %v; want nothing", h, err)
	}
	if _, err := s.Import(ctx, nil, "", Migration{}); !errors.Is(err, ErrBadExport) {
		t.Errorf("Import(nil): %v, want ErrBadExport", err)
	}
}

// TestOpenRefusesForeignDirectory: a store is created only where it
// mixes with no one's files; a store already there, or what a process
// killed while creating one left, opens as before.
func TestOpenRefusesForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, &Options{NoSync: true}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("open in a directory of someone's files: %v, want ErrInvalid naming notes.txt", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("the refused open left %d entries, want the one file", len(entries))
	}
	// Files a store writes do not count: a creation cut short reopens.
	partial := t.TempDir()
	for _, name := range []string{"LOCK", "000002.log", "OPTIONS-000003"} {
		if err := os.WriteFile(filepath.Join(partial, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Open(partial, &Options{NoSync: true}); errors.Is(err, ErrInvalid) {
		t.Fatalf("open where a creation was cut short: %v", err)
	}
	// A store with someone's file beside it opens.
	s := openTest(t, nil)
	sdir := s.Dir()
	s.Close()
	if err := os.WriteFile(filepath.Join(sdir, "README"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(sdir, &Options{NoSync: true})
	if err != nil {
		t.Fatalf("reopen of a store with a file beside it: %v", err)
	}
	s2.Close()
}
