package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/aqlstore/aqlstore/store"
)

// BenchmarkIndexedPut puts generated manifests in synced PutBatch
// commits of 1,000 documents (the CLI's batches before bulk loads) and
// of 1 (the server's single puts).
func BenchmarkIndexedPut(b *testing.B) {
	for _, size := range []int{1000, 1} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) { benchIndexedPut(b, size) })
	}
}

func benchIndexedPut(b *testing.B, size int) {
	s, _, err := Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	batch := make([]store.Document, 0, size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body, _ := corpus.Document("manifest", 1, i, nil)
		batch = append(batch, store.Document{Body: body})
		if len(batch) == cap(batch) || i == b.N-1 {
			if _, err := s.PutBatch(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkIndexedLoad stores generated manifests with a store.Loader,
// as `aqlstore put` does: prepared 1,000 at a time on every core, added
// in order, ingested once at the end (included in the time).
func BenchmarkIndexedLoad(b *testing.B) {
	s, _, err := Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	batch := make([]store.Document, 0, 1000)
	b.ResetTimer()
	l, err := s.NewLoader(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Abort()
	for i := 0; i < b.N; i++ {
		body, _ := corpus.Document("manifest", 1, i, nil)
		batch = append(batch, store.Document{Body: body})
		if len(batch) == cap(batch) || i == b.N-1 {
			prep, err := s.PrepareAll(ctx, batch)
			if err != nil {
				b.Fatal(err)
			}
			for _, pd := range prep {
				if _, err := l.Add(pd); err != nil {
					b.Fatal(err)
				}
			}
			batch = batch[:0]
		}
	}
	if err := l.Commit(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// canonicalManifests returns the canonical bytes of the first n
// generated manifests (seed 1).
func canonicalManifests(b *testing.B, n int) [][]byte {
	bodies := make([][]byte, n)
	for i := range bodies {
		body, _ := corpus.Document("manifest", 1, i, nil)
		c, err := canon.Canonicalize(nil, body, nil)
		if err != nil {
			b.Fatal(err)
		}
		bodies[i] = c
	}
	return bodies
}

// BenchmarkExtract walks generated manifests' canonical bytes with the
// posting extractor (no store) and reports how many postings a manifest
// has in all, and how many are trigrams, equality, range and existence
// postings: the count behind indexed ingest's cost.
func BenchmarkExtract(b *testing.B) {
	const docs = 200
	bodies := canonicalManifests(b, docs)
	var counts [256]int // an array, not a map: the figure is the extractor's
	var x extractor
	x.emit = func(_ []byte, fam byte, _ []byte) { counts[fam]++ }
	x.text = func([]byte) bool { return false } // the default: no text paths
	n := 0
	for b.Loop() {
		x.path = x.path[:0]
		x.walk(bodies[n%docs])
		n++
	}
	total := 0
	for _, c := range counts {
		total += c
	}
	b.ReportMetric(float64(total)/float64(n), "postings/doc")
	b.ReportMetric(float64(counts[famGram])/float64(n), "trigrams/doc")
	b.ReportMetric(float64(counts[famEq])/float64(n), "eq/doc")
	b.ReportMetric(float64(counts[famRange])/float64(n), "range/doc")
	b.ReportMetric(float64(counts[famExists])/float64(n), "exists/doc")
}

// BenchmarkPaths resolves a wildcard pointer against the path dictionary
// of 1,000 generated manifests three ways: remembered (Paths, the memo
// hit every query after the first sees), matched against the decoded
// dictionary (a memo miss), and decoding every path's segments first (as
// Paths did before the dictionary kept them decoded).
func BenchmarkPaths(b *testing.B) {
	s, ix, err := Open(b.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	batch := make([]store.Document, 0, 1000)
	for i := range 1000 {
		body, _ := corpus.Document("manifest", 1, i, nil)
		batch = append(batch, store.Document{Body: body})
	}
	if _, err := s.PutBatch(context.Background(), batch); err != nil {
		b.Fatal(err)
	}
	ptr := canon.MustParsePointer("/tool/categories/*")
	b.Run("memo", func(b *testing.B) {
		for b.Loop() {
			ix.Paths(ptr)
		}
		b.ReportMetric(float64(len(ix.dict)), "dictionary-paths")
	})
	b.Run("decoded-dictionary", func(b *testing.B) {
		for b.Loop() {
			ix.memoM.Lock()
			ix.memo = nil
			ix.memoM.Unlock()
			ix.Paths(ptr)
		}
	})
	b.Run("decode-each-path", func(b *testing.B) {
		pat := ptr.Segments()
		want, _ := ix.Paths(ptr)
		for b.Loop() {
			var ids []uint32
			for p, id := range ix.ids {
				if match(pat, p.segments()) != noMatch {
					ids = append(ids, id)
				}
			}
			if len(ids) != len(want) {
				b.Fatalf("decoding each path found %d paths, Paths %d", len(ids), len(want))
			}
		}
	})
}

// BenchmarkAddExtracted times the writer's share of an indexed put or
// load: AddExtracted of documents extracted beforehand (outside the
// timer), numbered in order, with a FlushRun into a discarded run every
// 100,000 documents as a Loader's run would. It reports the nanoseconds
// per posting the writer spends.
func BenchmarkAddExtracted(b *testing.B) {
	ix := New()
	ix.text = newTextMatcher(nil)
	xs := make([]any, b.N)
	postings := 0
	for i := range xs {
		body, _ := corpus.Document("manifest", 1, i, nil)
		c, err := canon.Canonicalize(nil, body, nil)
		if err != nil {
			b.Fatal(err)
		}
		if xs[i], err = ix.Extract(store.IndexInput{Kind: "manifest", Owner: "o", Canonical: c}); err != nil {
			b.Fatal(err)
		}
		postings += xs[i].(*extracted).count()
	}
	b.ResetTimer()
	for i, x := range xs {
		if err := ix.AddExtracted(uint32(i+1), x); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(postings), "ns/posting")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// count returns the number of postings x holds: its entries and one
// existence posting per distinct path.
func (x *extracted) count() int {
	paths := map[string]bool{}
	for i := range x.ends {
		paths[string(x.path(i))] = true
	}
	n := len(paths)
	for e := x.entries; len(e) > 0; n++ {
		_, k := binary.Uvarint(e)
		e = e[k+1:]
		l, k := binary.Uvarint(e)
		e = e[k+int(l):]
	}
	return n
}
