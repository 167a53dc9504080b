package eval

import (
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/aqlstore/aqlstore/query/aql"
)

// benchDocs is how many generated manifests the benchmarks cycle through:
// enough that a document is rarely in cache when it comes round again.
const benchDocs = 4096

// manifests decodes benchDocs generated manifests once.
func manifests(b *testing.B) []any {
	b.Helper()
	canonical := canonicalManifests(b)
	docs := make([]any, len(canonical))
	for i, c := range canonical {
		docs[i] = decodeCanonical(b, c)
	}
	return docs
}

// BenchmarkEvaluate measures Match (the counting path) and Eval (with
// records) over generated manifests, one leaf per document, and reports
// leaf evaluations per second.
func BenchmarkEvaluate(b *testing.B) {
	docs := manifests(b)
	for _, bc := range []struct{ name, src string }{
		{"eq", `{"path": "/risk_class", "operator": "eq", "value": "high"}`},
		{"wildcard", `{"path": "/actions/*/side_effects", "operator": "eq", "value": "irreversible"}`},
		{"decimal", `{"path": "/pricing/models/*/amount", "operator": "lte", "value": "100.00"}`},
		{"regex", `{"path": "/tool/name", "operator": "matches", "value": "^[A-Z].*tool"}`},
	} {
		n := mustCompile(b, bc.src, 100*time.Millisecond)
		b.Run(bc.name+"/match", func(b *testing.B) {
			benchLeaves(b, docs, func(e *Evaluator, _ []aql.Evaluation, d any) bool { return e.Match(n, d) })
		})
		b.Run(bc.name+"/eval", func(b *testing.B) {
			benchLeaves(b, docs, func(e *Evaluator, rec []aql.Evaluation, d any) bool {
				ok, _ := e.Eval(n, d, rec)
				return ok
			})
		})
	}
}

// benchLeaves runs judge over docs in turn, with a fresh Evaluator and a
// records slice it may reuse, and reports leaves/s and the hit ratio.
func benchLeaves[D any](b *testing.B, docs []D, judge func(e *Evaluator, rec []aql.Evaluation, doc D) bool) {
	e := New()
	rec := make([]aql.Evaluation, 0, 1)
	b.ReportAllocs()
	i, hits := 0, 0
	for b.Loop() {
		if judge(e, rec[:0], docs[i%len(docs)]) {
			hits++
		}
		i++
	}
	reportLeaves(b, i, hits)
}

func reportLeaves(b *testing.B, leaves, hits int) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(leaves)/s, "leaves/s")
	}
	b.ReportMetric(float64(hits)/float64(max(leaves, 1)), "hit-ratio")
}

// BenchmarkResolve is the floor under BenchmarkEvaluate: resolving the
// same paths with canon.Pointer.Resolve and a no-op callback, so that the
// evaluator's own share of each figure can be read off.
func BenchmarkResolve(b *testing.B) {
	docs := manifests(b)
	for _, bc := range []struct{ name, path string }{
		{"eq", "/risk_class"},
		{"wildcard", "/actions/*/side_effects"},
		{"decimal", "/pricing/models/*/amount"},
		{"regex", "/tool/name"},
	} {
		p := canon.MustParsePointer(bc.path)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				p.Resolve(docs[i%len(docs)], func(any) bool { return true })
				i++
			}
			b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "paths/s")
		})
	}
}

// canonicalManifests returns the canonical bytes of benchDocs generated
// manifests: the form a store keeps them in.
func canonicalManifests(b *testing.B) [][]byte {
	b.Helper()
	docs := make([][]byte, benchDocs)
	var buf []byte
	for i := range docs {
		var err error
		if buf, err = corpus.Document("manifest", 1, i, buf[:0]); err != nil {
			b.Fatal(err)
		}
		if docs[i], err = canon.Canonicalize(nil, buf, nil); err != nil {
			b.Fatal(err)
		}
	}
	return docs
}

// BenchmarkEvaluateRaw sets the raw path beside the decoding one, per
// candidate as a resolver meets it (canonical bytes in hand): decode then
// Eval or Match, against EvalRaw and MatchRaw on the bytes.
func BenchmarkEvaluateRaw(b *testing.B) {
	docs := canonicalManifests(b)
	for _, bc := range []struct{ name, src string }{
		{"eq-nested", `{"path": "/tool/publisher/registry/country", "operator": "eq", "value": "FR"}`},
		{"decimal-lte", `{"path": "/pricing/models/0/amount", "operator": "lte", "value": "100.00"}`},
		{"decimal-lte-wildcard", `{"path": "/pricing/models/*/amount", "operator": "lte", "value": "100.00"}`},
		{"wildcard-eq", `{"path": "/actions/*/side_effects", "operator": "eq", "value": "irreversible"}`},
		{"contains", `{"path": "/jurisdictions", "operator": "contains", "value": "NL"}`},
		{"after", `{"path": "/conformance/last_attested_at", "operator": "after", "value": "2024-06-01T00:00:00Z"}`},
		{"exists", `{"path": "/governance/contact_email", "operator": "exists", "value": true}`},
	} {
		n := mustCompile(b, bc.src, 100*time.Millisecond)
		b.Run(bc.name+"/decode+eval", func(b *testing.B) {
			benchLeaves(b, docs, func(e *Evaluator, rec []aql.Evaluation, d []byte) bool {
				ok, _ := e.Eval(n, decodeCanonical(b, d), rec)
				return ok
			})
		})
		b.Run(bc.name+"/decode+match", func(b *testing.B) {
			benchLeaves(b, docs, func(e *Evaluator, _ []aql.Evaluation, d []byte) bool { return e.Match(n, decodeCanonical(b, d)) })
		})
		b.Run(bc.name+"/evalraw", func(b *testing.B) {
			benchLeaves(b, docs, func(e *Evaluator, rec []aql.Evaluation, d []byte) bool {
				ok, _ := e.EvalRaw(n, d, rec)
				return ok
			})
		})
		b.Run(bc.name+"/matchraw", func(b *testing.B) {
			benchLeaves(b, docs, func(e *Evaluator, _ []aql.Evaluation, d []byte) bool { return e.MatchRaw(n, d) })
		})
	}
}

func decodeCanonical(b *testing.B, doc []byte) any {
	v, err := canon.DecodeCanonical(doc)
	if err != nil {
		b.Fatal(err)
	}
	return v
}
