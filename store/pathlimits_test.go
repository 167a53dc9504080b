package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// TestPutPathLimits: Put refuses a document past a path limit of the
// store's Options.Limits (or canon's defaults) before anything is
// written, naming the limit and the pointer of the offending member; a
// batch holding one such document stores none.
func TestPutPathLimits(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, &Options{NoSync: true, Limits: canon.Limits{MaxNameBytes: 16, MaxPaths: 8}})
	if _, err := s.Put(ctx, Document{Body: []byte(`{"sixteen-bytes-x":1}`)}); err != nil {
		t.Fatalf("a name at the configured limit: %v", err)
	}
	_, err := s.PutBatch(ctx, []Document{
		{Body: []byte(`{"a":1}`)},
		{Body: []byte(`{"a":{"seventeen-bytes-x":1}}`)},
	})
	var be *BatchError
	if !errors.As(err, &be) || be.Index != 1 || !errors.Is(err, canon.ErrLimit) {
		t.Fatalf("got %v, want document 1 refused with canon.ErrLimit", err)
	}
	for _, part := range []string{"(at /a/seventeen-bytes-x)", "member name of 17 bytes", "Limits.MaxNameBytes"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("%q does not say %q", err, part)
		}
	}
	_, err = s.Put(ctx, Document{Body: []byte(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}`)})
	if !errors.Is(err, canon.ErrLimit) || !strings.Contains(err.Error(), "(at /i)") {
		t.Fatalf("nine paths under MaxPaths 8: %v", err)
	}
	st, err := s.Stats(ctx)
	if err != nil || st.Documents != 1 {
		t.Fatalf("after the refusals: %v, %+v; want the one document", err, st)
	}
}

// TestPutDeepLongNames is the document that once added a gigabyte of
// path dictionary: 4 MB nested 63 deep with 65,000-byte member names. The
// defaults refuse it at its first name.
func TestPutDeepLongNames(t *testing.T) {
	s := openTest(t, nil)
	name := strings.Repeat("n", 65000)
	body := strings.Repeat(`{"`+name+`":`, 63) + "1" + strings.Repeat("}", 63)
	_, err := s.Put(context.Background(), Document{Body: []byte(body)})
	if !errors.Is(err, canon.ErrLimit) || !strings.Contains(err.Error(), "member name of 65000 bytes is over the limit of 1024") {
		t.Fatalf("got %v", err)
	}
	var se *canon.SyntaxError
	if !errors.As(err, &se) || se.Pointer != "/"+name {
		t.Fatalf("the error names no pointer, or the wrong one: %v", err)
	}
}
