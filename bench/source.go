package bench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/corpus"
)

// Source is the corpus every backend loads: manifests 0..N-1 of Seed.
type Source struct {
	Seed uint64
	N    int
}

// Each calls fn with every document in order: its candidate id (the
// manifest's natural key, what aqlstore names it: tool.did "@"
// tool.version) and its JSON.
// body is valid only during the call.
func (s *Source) Each(ctx context.Context, fn func(i int, cid string, body []byte) error) error {
	var buf []byte
	for i := range s.N {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var err error
		if buf, err = corpus.Document(corpus.KindManifest, s.Seed, i, buf[:0]); err != nil {
			return err
		}
		cid, err := canon.NaturalKey(canon.KindManifest, buf)
		if err != nil {
			return fmt.Errorf("manifest %d: %w", i, err)
		}
		if err := fn(i, cid, buf); err != nil {
			return err
		}
	}
	return nil
}

// dirBytes is the size of every regular file under dir. The engine may
// still be running (a compaction deleting the files it replaced), so a
// file that is gone by the time it is read counts as nothing.
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return gone(err)
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return gone(err)
	})
	return n, err
}

// gone drops an error that says a file no longer exists.
func gone(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
