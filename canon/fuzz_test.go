package canon

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/gowebpki/jcs"
)

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":1,"b":[true,null,"x"]}`, `{"\u0061":1,"a":2}`,
		`[1.0,-0,1e2,0.1,"\ud83d\ude00"]`, `{"z":{"y":{"x":[]}}}`, "\"\xff\"", `{"a":1e400}`, `  7  `, `[`} {
		f.Add([]byte(s))
	}
}

// FuzzDecode: the strict decoder never panics, and whatever it accepts
// canonicalizes to a fixed point.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := Decode(b, nil); err != nil {
			return
		}
		c1, err := Canonicalize(nil, b, nil)
		if err != nil {
			if !errors.Is(err, ErrNotCanonicalizable) {
				t.Fatalf("decoded but did not canonicalize: %v", err)
			}
			return
		}
		c2, _, err := Canonical(c1, nil)
		if err != nil || !bytes.Equal(c1, c2) {
			t.Fatalf("not a fixed point: %q → %q → %q (%v)", b, c1, c2, err)
		}
	})
}

// FuzzCanonicalizeAgainstJCS holds the fast canonicalizer to the
// reference implementation: whenever both accept, the bytes are equal;
// and the fast path never accepts what the strict decoder rejects.
func FuzzCanonicalizeAgainstJCS(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Canonicalize(nil, b, nil)
		if err != nil {
			return
		}
		if _, derr := Decode(b, nil); derr != nil {
			t.Fatalf("canonicalized input the decoder rejects: %q: %v", b, derr)
		}
		want, jerr := jcs.Transform(b)
		if jerr == nil && !bytes.Equal(got, want) {
			t.Fatalf("%q: ours %q, jcs %q", b, got, want)
		}
	})
}

// FuzzDecodeCanonical: on canonical bytes the fast decoder gives exactly
// what the strict decoder gives; on anything else it never panics.
func FuzzDecodeCanonical(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeCanonical(b)
		c, err := Canonicalize(nil, b, nil)
		if err != nil {
			return
		}
		fast, err := DecodeCanonical(c)
		if err != nil {
			t.Fatalf("canonical %q not decoded: %v", c, err)
		}
		strict, _ := Decode(c, &Limits{MaxBytes: len(c) + 1, MaxDepth: 1 << 20, MaxMembers: 1 << 30})
		if string(AppendValue(nil, fast)) != string(AppendValue(nil, strict)) {
			t.Fatalf("%q: fast %v, strict %v", c, fast, strict)
		}
	})
}

// FuzzDecodeFast holds the one-pass decoder to the token decoder: both
// accept the same documents (the limits here are below fastMaxDepth, the
// one place the one-pass decoder defers on a valid document), and decode
// them to the same value (numbers keep their text, so a difference in
// them shows). Under tight limits too, so that bailing out at a limit is
// exercised.
func FuzzDecodeFast(f *testing.F) {
	fuzzSeeds(f)
	for _, s := range []string{`{"a":"\u00e9\n","b":-0.5e+7,"c":[{},[],""]}`, "\"caf\xc3\xa9\"", `"\ud800"`,
		`{"a":1,"a":2}`, `{"\u0061":1,"a":2}`, `[01]`, `1.`, `-`, "\"\x01\"", `"\x"`, "\t[ 1 ,\r\n2 ]\n", `[[[[[1]]]]]`,
		`{"a":[1,2,3]}`, "\xef\xbb\xbf{}", `nul`, `[1,]`, `{"a":1,}`, `{"a" 1}`,
		`{"ab":{"c":[1]}}`, `[{"a":1},{"b":2},{"a":3}]`, `{"abc":1}`, `{"a":1,"b":2,"c":3,"d":4,"e":5}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tight := Limits{MaxBytes: 1 << 20, MaxDepth: 2, MaxMembers: 2}
		paths := Limits{MaxBytes: 1 << 20, MaxNameBytes: 2, MaxPathBytes: 5, MaxPaths: 4, MaxPathsBytes: 9}
		for _, l := range []Limits{DefaultLimits(), *tight.EnsureDefaults(), *paths.EnsureDefaults()} {
			fast, ok := decodeFast(b, l)
			slow, err := decodeTokens(b, l)
			if !ok {
				if err == nil {
					t.Fatalf("%q under %+v: the one-pass decoder defers a valid document", b, l)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%q under %+v: the one-pass decoder accepts what the token decoder rejects: %v", b, l, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%q under %+v: one-pass %#v, tokens %#v", b, l, fast, slow)
			}
		}
	})
}
