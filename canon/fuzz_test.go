package canon

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
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

// FuzzCanonicalizeOnePass holds the one-pass canonicalizer to the token
// path under the default, tight and path limits: both accept the same
// documents and write the same bytes, and the root members the one pass
// records are the members of what it wrote. (Canonicalize falls back on
// the token path, so its errors stay the token path's; this target
// checks that the one pass never accepts what that path refuses, never
// defers what it accepts, and never writes other bytes.)
func FuzzCanonicalizeOnePass(f *testing.F) {
	fuzzSeeds(f)
	for _, s := range []string{`{"b":1,"a":{"d":[1.50,"x"],"c":null}}`, `{"b":1,"a":2,"b":3}`, `{"a":{"y":1,"x":2,"y":3}}`,
		`{"\u0062":1,"a":2}`, `{"a\n":1,"a":2,"a\"":3}`, "{\"\xef\xbc\xa1\":1,\"\xf0\x9f\x98\x80\":2}", `{"é":1,"e":2,"z":3}`,
		`[1E2,-0.0,0.000001,1e-7,123456789012345678,1e21,-1.5e-300,1e400]`, `"\u2028\u00e9\t\u001f"`, `{"a":"\ud800"}`,
		"{ \"k\" : [ true , false , null ] }\n", `{"a":[{"c":1,"b":2},{"b":1,"a":{}}]}`, `{"":0,"\u0000":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tight := Limits{MaxBytes: 1 << 20, MaxDepth: 2, MaxMembers: 2}
		paths := Limits{MaxBytes: 1 << 20, MaxNameBytes: 2, MaxPathBytes: 5, MaxPaths: 4, MaxPathsBytes: 9}
		for _, l := range []Limits{DefaultLimits(), *tight.EnsureDefaults(), *paths.EnsureDefaults()} {
			c := onePassPool.Get().(*onePass)
			fast, ok := c.run([]byte("prefix"), b, &l)
			root := slices.Clone(c.root)
			rootOK := c.rootOK
			c.release()
			slow, err := canonicalizeTokens([]byte("prefix"), b, &l)
			if !ok {
				if err == nil {
					t.Fatalf("%q under %+v: the one pass defers a valid document", b, l)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%q under %+v: the one pass accepts what the token path refuses: %v", b, l, err)
			}
			if !bytes.Equal(fast, slow) {
				t.Fatalf("%q under %+v: one pass %q, tokens %q", b, l, fast, slow)
			}
			checkRoot(t, fast, root, rootOK)
		}
	})
}

// checkRoot checks the root members a one pass recorded against the
// members of the canonical bytes it wrote (after a 6-byte prefix).
func checkRoot(t *testing.T, c []byte, root []memberOffsets, rootOK bool) {
	t.Helper()
	var want [][2]string
	EachMember(c[6:], func(key, value []byte) bool {
		want = append(want, [2]string{string(key), string(value)})
		return true
	})
	if !rootOK {
		if len(want) != 0 {
			t.Fatalf("%q: no root members recorded, want %q", c, want)
		}
		return
	}
	var got [][2]string
	rootTable{c, root}.eachMember(func(key, value []byte) bool {
		got = append(got, [2]string{string(key), string(value)})
		return true
	})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: root members %q, want %q", c, got, want)
	}
}
