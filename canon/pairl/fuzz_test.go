package pairl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// fuzzSeeds cover every record form, the later-version constructs and the
// lexing corners (multi-line quotes, escapes, CR LF, stray quotes).
var fuzzSeeds = []string{
	"@v 1\n@mid ref:msg:01HFAAAAAAAAAAAAAAAAAAAAAA\n@ts 2026-03-01T09:00:00Z\n\nreq{t=x,s=f,l=2} @rid=a1\n#fact a=1 @rid=f1\n",
	"@v 1\n@mid ref:msg:A\n@ts 2026-03-01T09:00:00Z\n@hash ref:hash:sha256:00\n\n#evid claim=\"a \\\"b\\\"\" src=ref:u:v conf=0.5\n#cost val=0.1 cur=USD note=\"x\"\n#quota type=t total=5 used=1 rem=4\n",
	"@v 1\n@id m1\n@ts 2026-06-22T10:00:00Z\n\n#u1\n#evid[claim,src,conf]\n\"x y\" s1 0.5 @rid=e1\n#call tool=R f=\"/a\" @m=u1 @rid=c1\n#s p:1/2\n",
	"@v 1\r\n@mid ref:msg:A\r\n\r\n#fact poem=\"a\nb\" @rid=f1\r\n#fact p=\"C:\\\" @rid=f2\n",
	"\n@foo\n#x[a]\n\n@bar\n",
	"\ufeff@v 1\r\n@mid ref:msg:A\n\n\ufeffack\n",
	"#cost[val,cur]\n1 USD\n2\nack \"open\n",
	"req{t=\"a,b\",\"bare\", k = v ,} @m=1 @rid=x @rid=y\n\r\"\nq\"\n",
	"@v 1\n@mid ref:msg:A\n@ts x\n@parent ref:msg:A\n@deps ref:msg:B , ref:msg:A\n@budget 0.1USD\n\nbid{} \n#cost val=1 cur=USD\n",
}

// FuzzRoundTrip checks that nothing panics and that canonicalization is a
// fixed point: parse → canonicalize → parse → canonicalize gives the same
// bytes, hash and view. Crashers found stay in testdata/fuzz.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	if files, _ := filepath.Glob(filepath.Join(sharedPAIRL, "examples-v1.*", "*.pairl")); len(files) > 0 {
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := roundTrip(b); err != nil {
			t.Fatal(err)
		}
	})
}

// roundTrip runs every entry point on b and checks the fixed point.
func roundTrip(b []byte) error {
	m, _, _ := Parse(b, Loose)
	if m == nil {
		return nil // refused input (limits, UTF-8)
	}
	exercise(m)
	c1 := m.Canonical()
	m2, _, err := Parse(c1, Loose)
	if m2 == nil {
		if errors.Is(err, ErrLineTooLong) || errors.Is(err, ErrTooLarge) {
			return nil // canonical text may be longer (ack → ack{})
		}
		return fmt.Errorf("canonical text does not parse: %v\n%q", err, c1)
	}
	if c2 := m2.Canonical(); !bytes.Equal(c1, c2) {
		return fmt.Errorf("canonical form is not a fixed point:\n%q\n%q\ninput %q", c1, c2, b)
	}
	if m.Hash() != m2.Hash() {
		return fmt.Errorf("hash changed across canonicalization")
	}
	v1, v2 := canon.AppendValue(nil, m.View()), canon.AppendValue(nil, m2.View())
	if !bytes.Equal(v1, v2) {
		return fmt.Errorf("view changed across canonicalization:\n%s\n%s", v1, v2)
	}
	return nil
}

// exercise calls the read-only entry points that must never panic.
func exercise(m *Message) {
	for _, md := range []Mode{Loose, Strict} {
		_ = Validate(m, Options{Mode: md, StrictRefs: true, Thread: NewMessageSet(m)})
	}
	_ = ValidateThread([]*Message{m, m}, Options{Mode: Strict})
	_ = Render(m)
	_ = m.Deps()
	_, _ = m.Budget()
	_, _ = m.Limit()
}
