package aidp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics; what it accepts re-parses from its
// canonical bytes to the same bytes and key; what it rejects is a
// non-empty ErrorList of known codes with pointers.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, tc := range malformedCases {
		if tc.raw != "" {
			f.Add([]byte(tc.raw))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b, nil)
		if err != nil {
			checkRejection(t, err)
			return
		}
		again, err := Parse(m.Canonical(), nil)
		if err != nil {
			t.Fatalf("canonical bytes rejected: %v\n%s", err, m.Canonical())
		}
		k1, ok1 := m.Key()
		k2, ok2 := again.Key()
		if !bytes.Equal(again.Canonical(), m.Canonical()) || k1 != k2 || ok1 != ok2 {
			t.Fatalf("re-parse differs: %q/%q", k1, k2)
		}
		if m.Envelope != nil && m.Observation != nil {
			t.Fatal("two payloads")
		}
	})
}

func checkRejection(t *testing.T, err error) {
	var l ErrorList
	if !errors.As(err, &l) || len(l) == 0 {
		t.Fatalf("rejection is %T %v", err, err)
	}
	for _, e := range l {
		if Sentinel(e.Code) == nil || (e.Pointer != "" && !strings.HasPrefix(e.Pointer, "/")) || e.Message == "" {
			t.Fatalf("bad error %#v", e)
		}
	}
	_ = l.Error()
}
