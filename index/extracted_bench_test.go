package index

import (
	"testing"

	"github.com/aqlstore/aqlstore/store"
)

// BenchmarkIndexExtract times Extract as Store.Prepare calls it for each
// document of a put: the walk of BenchmarkExtract, and the recording of
// its postings and paths for the writer, allocations included.
func BenchmarkIndexExtract(b *testing.B) {
	const docs = 200
	ix := New()
	ix.text = newTextMatcher(nil)
	bodies := canonicalManifests(b, docs)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := ix.Extract(store.IndexInput{Kind: "manifest", Owner: "o", Canonical: bodies[n%docs]}); err != nil {
			b.Fatal(err)
		}
		n++
	}
}
