package canon

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

func TestCheckDID(t *testing.T) {
	for _, s := range []string{"did:web:agent.example", "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
		"did:example:123:456", "did:web:a.example%3A8443"} {
		if err := CheckDID(s); err != nil {
			t.Errorf("CheckDID(%q): %v", s, err)
		}
	}
	for s, want := range map[string]string{
		"notadid":               `does not start with "did:"`,
		"":                      `does not start with "did:"`,
		"did:web":               "no method",
		"did::x":                "no method",
		"did:Web:a.example":     `method "Web"`,
		"did:web:":              "id is empty",
		"did:web:a\nb":          "line break",
		"DID:web:agent.example": `does not start with "did:"`,
	} {
		err := CheckDID(s)
		if !errors.Is(err, ErrInvalidDID) {
			t.Errorf("CheckDID(%q) = %v, want ErrInvalidDID", s, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, want) || !strings.Contains(msg, "did:web:agent.example") {
			t.Errorf("CheckDID(%q) = %q, want it to say %q and show a DID", s, msg, want)
		}
	}
}

// didSchema is the AQL intent schema's DID pattern (^did:[a-z0-9]+:.+$,
// with ECMA-262's "." written out): CheckDID must accept exactly what it
// accepts, so a DID valid in an intent is valid everywhere.
var didSchema = regexp.MustCompile(`^did:[a-z0-9]+:[^\n\r\x{2028}\x{2029}]+$`)

func FuzzCheckDID(f *testing.F) {
	for _, s := range []string{"did:web:a.example", "did:key:z6Mk", "did::x", "did:a:\u2028", "notadid", "did:web:\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckDID(s)
		if (err == nil) != didSchema.MatchString(s) {
			t.Fatalf("CheckDID(%q) = %v, schema pattern matches: %v", s, err, didSchema.MatchString(s))
		}
	})
}
