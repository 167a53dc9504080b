package query

import (
	"context"
	"testing"
)

// BenchmarkFullScanPage1 times the first full_set page of 100 through the
// full scan (no index), rejections not listed, as aqlbench's
// aqlstore-scan engine asks it: a 99.9% instant range and a 10% equality.
// The page should cost the scan, not a ranking of every accepted
// candidate.
func BenchmarkFullScanPage1(b *testing.B) {
	s, _ := benchCorpus(b)
	for _, q := range []struct{ name, constraints string }{
		{"before_99.9pct_page1", `{"path":"/conformance/last_attested_at","operator":"before","value":"2026-01-01T00:00:01Z"}`},
		{"risk_eq_10pct_page1", `{"path":"/risk_class","operator":"eq","value":"high"}`},
	} {
		in := benchIntent(b, q.constraints)
		b.Run(q.name, func(b *testing.B) {
			o := &Options{Signer: testSigner(), At: at, PageSize: 100, MaxRejected: -1}
			resp, err := Resolve(context.Background(), s, in, o)
			if err != nil {
				b.Fatal(err)
			}
			if len(resp.Candidates) != 100 {
				b.Fatalf("%d candidates, want 100", len(resp.Candidates))
			}
			cpu0 := processCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Resolve(context.Background(), s, in, o); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(processCPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
