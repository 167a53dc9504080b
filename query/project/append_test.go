package project

import (
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/corpus"
)

// BenchmarkPayloadBytes gives a generated manifest's payload as bytes, as
// a response needs it, two ways: the projection decoded to a map and
// written again (ApplyRawDoc + AppendValue, the old path), and the
// selected ranges copied (AppendRawDoc).
func BenchmarkPayloadBytes(b *testing.B) {
	body, _ := corpus.Document("manifest", 1, 7, nil)
	c, _ := canonicalDoc(b, body)
	for _, include := range [][]string{{"/tool/id"}, {"/tool", "/pricing"}, {"/"}} {
		inc := pointers(b, include)
		b.Run(include[0]+"/map", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, _, _ := ApplyRawDoc(canon.NewRawDoc(c), inc, nil)
				_ = canon.AppendValue(nil, p)
			}
		})
		b.Run(include[0]+"/bytes", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _, _ = AppendRawDoc(nil, canon.NewRawDoc(c), inc, nil)
			}
		})
	}
}
