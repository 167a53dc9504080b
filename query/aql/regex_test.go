package aql

import (
	"testing"
	"time"
	"unicode/utf16"
)

// FuzzCompileRegex checks that a pattern from an untrusted issuer never
// panics the scanner or the compiler, and that a compiled one matches
// any string, as a Go string and as its UTF-16 units alike, within its
// timeout.
func FuzzCompileRegex(f *testing.F) {
	for _, p := range []string{`^.$`, `[😀-😂]`, `(?<x>a)\k<x>`, `\12\8[\1-\7]`, `(?i)a`,
		`[\uD800-\uDFFF]`, `(?<𝒜>a)`, `[\d-z]`, `\c*[\c_]`, `(?<a-b>x)`, `a{2,1}`} {
		f.Add(p, "a😀\nb")
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		re, err := CompileRegex(pattern)
		if err != nil {
			return
		}
		re.MatchTimeout = 50 * time.Millisecond
		got, err1 := MatchString(re, s)
		got2, err2 := MatchUnits(re, utf16.Encode([]rune(s)))
		if err1 == nil && err2 == nil && got != got2 {
			t.Fatalf("%q on %q: MatchString %v, MatchUnits %v", pattern, s, got, got2)
		}
	})
}
