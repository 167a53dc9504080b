package canon

import (
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/gowebpki/jcs"
)

func BenchmarkParseDocument(b *testing.B) {
	docs := make([][]byte, 1000)
	for i := range docs {
		docs[i], _ = corpus.Document("manifest", 1, i, nil)
	}
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		d := docs[i%len(docs)]
		n += len(d)
		if _, err := ParseDocument(d, "", nil); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(n / b.N))
}

func BenchmarkDecodeStoredManifest(b *testing.B) {
	docs := make([][]byte, 200)
	for i := range docs {
		raw, _ := corpus.Document("manifest", 1, i, nil)
		docs[i], _ = Canonicalize(nil, raw, nil)
	}
	for _, mode := range []string{"strict", "canonical"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c := docs[i%len(docs)]
				var err error
				if mode == "strict" {
					_, err = Decode(c, nil)
				} else {
					_, err = DecodeCanonical(c)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecode compares Decode's one-pass path with the token decoder
// it falls back on, on a point-query intent (what the server decodes per
// query) and on generated manifests (what a put decodes).
func BenchmarkDecode(b *testing.B) {
	intent := []byte(`{"category":"discovery","constraints":{"operator":"eq","path":"/tool/id","value":"tool-1-4711"},` +
		`"intent_id":"urn:oap:intent:loadtest","issuer_did":"did:web:loadtest.example",` +
		`"projection":{"include":["/tool/name"]},"signature":{"alg":"EdDSA","value":"unsigned"},` +
		`"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"}}`)
	manifests := make([][]byte, 200)
	for i := range manifests {
		manifests[i], _ = corpus.Document("manifest", 1, i, nil)
	}
	l := DefaultLimits()
	for _, input := range []struct {
		name string
		docs [][]byte
	}{{"intent", [][]byte{intent}}, {"manifest", manifests}} {
		for _, path := range []struct {
			name   string
			decode func([]byte) bool
		}{
			{"one-pass", func(d []byte) bool { _, ok := decodeFast(d, l); return ok }},
			{"tokens", func(d []byte) bool { _, err := decodeTokens(d, l); return err == nil }},
		} {
			b.Run(input.name+"/"+path.name, func(b *testing.B) {
				n := 0
				for i := 0; b.Loop(); i++ {
					d := input.docs[i%len(input.docs)]
					n += len(d)
					if !path.decode(d) {
						b.Fatalf("%s did not decode %.80s", path.name, d)
					}
				}
				b.SetBytes(int64(n / b.N))
			})
		}
	}
}

// BenchmarkCanonicalize measures the put path's canonicalizer (the one
// pass of onepass.go) against the reference implementation on the same
// generated manifests (the tests hold the two byte-identical).
func BenchmarkCanonicalize(b *testing.B) {
	docs := make([][]byte, 1000)
	for i := range docs {
		docs[i], _ = corpus.Document("manifest", 1, i, nil)
	}
	b.Run("canon", func(b *testing.B) {
		buf := make([]byte, 0, 8192)
		for i := 0; i < b.N; i++ {
			if _, err := Canonicalize(buf[:0], docs[i%len(docs)], nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gowebpki-jcs", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := jcs.Transform(docs[i%len(docs)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCanonicalizeWide is the put path on a document past the path
// bounds (more nodes than MaxPaths): 9,000 elements of one shape (54,000 nodes), whose
// distinct paths withinLimits then counts exactly, a second walk that
// documents within the bounds never take.
func BenchmarkCanonicalizeWide(b *testing.B) {
	doc := []byte(`{"rows":[` + strings.TrimSuffix(strings.Repeat(`{"id":"r","n":1,"tags":["a","b"]},`, 9000), ",") + `]}`)
	buf := make([]byte, 0, len(doc))
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := Canonicalize(buf[:0], doc, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSkimManifest resolves /tool/id over stored manifests through a
// Members, as a query's evaluation does first: most of its cost is
// skimming the root members RFC 8785 sorts before "tool" (forward, Reset)
// or, read from the end (canonical, ResetCanonical), those after it and
// "tool" itself.
func BenchmarkSkimManifest(b *testing.B) {
	docs := make([][]byte, 200)
	for i := range docs {
		d, _ := corpus.Document("manifest", 1, i, nil)
		docs[i], _ = Canonicalize(nil, d, nil)
	}
	p := MustParsePointer("/tool/id")
	for _, way := range []struct {
		name  string
		reset func(d *Members, b []byte)
	}{{"forward", (*Members).Reset}, {"canonical", (*Members).ResetCanonical}} {
		b.Run(way.name, func(b *testing.B) {
			var d Members
			b.ReportAllocs()
			n := 0
			for i := 0; b.Loop(); i++ {
				doc := docs[i%len(docs)]
				n += len(doc)
				way.reset(&d, doc)
				if !p.ResolveMembers(&d, func([]byte) bool { return true }) {
					b.Fatal("stopped")
				}
			}
			b.SetBytes(int64(n / b.N))
		})
	}
}
