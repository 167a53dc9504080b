package canon

import (
	"testing"

	"github.com/aqlstore/aqlstore/bench/corpus"
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
