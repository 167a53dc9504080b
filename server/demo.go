package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/aqlstore/aqlstore/store"
)

// demoCorpus is what LoadDemo generates: documents of each kind, seed 1.
var demoCorpus = []corpus.Config{
	{Kind: corpus.KindManifest, Seed: 1, N: 300},
	{Kind: corpus.KindCandidate, Seed: 1, N: 100},
	{Kind: corpus.KindOffer, Seed: 2, N: 100},
	{Kind: corpus.KindKnowledge, Seed: 1, N: 50},
}

// LoadDemo fills an empty store (no receipt yet) with a small public demo
// corpus, so that a first query returns something: the internal/corpus
// documents of demoCorpus and, when extraFile names a readable file (a
// JSON array of documents, e.g. testdata/demo/candidates.json), those.
// A store that has ever been written is left alone. It returns how many
// documents it stored.
func LoadDemo(ctx context.Context, s *store.Store, extraFile string) (int, error) {
	if s.Head() != 0 {
		return 0, nil
	}
	var docs []store.Document
	for _, cfg := range demoCorpus {
		g, err := corpus.New(cfg)
		if err != nil {
			return 0, fmt.Errorf("demo: %w", err)
		}
		for b, ok := g.Next(nil); ok; b, ok = g.Next(nil) {
			docs = append(docs, store.Document{Body: b, Owner: store.Public})
		}
	}
	extra, err := demoFile(extraFile)
	if err != nil {
		return 0, err
	}
	refs, err := s.PutBatch(ctx, append(docs, extra...))
	if err != nil {
		return 0, fmt.Errorf("demo: %w", err)
	}
	return len(refs), nil
}

// demoFile reads a JSON array of documents; a missing file is no error.
func demoFile(path string) ([]store.Document, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	return splitArray(b)
}

// splitArray cuts a JSON array into one document per element.
func splitArray(b []byte) ([]store.Document, error) {
	v, err := canon.Decode(b, &canon.Limits{MaxBytes: len(b) + 1})
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("demo: the file is not a JSON array of documents")
	}
	docs := make([]store.Document, len(arr))
	for i, e := range arr {
		docs[i] = store.Document{Body: canon.AppendValue(nil, e), Owner: store.Public}
	}
	return docs, nil
}
