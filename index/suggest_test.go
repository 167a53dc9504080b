package index

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

func TestSuggest(t *testing.T) {
	s, ix := openIndexed(t)
	ctx := context.Background()
	put(t, s, ctx, `{"category":"shoes","price":{"amount":"79.99","currency":"EUR"},"tags":[{"name":"x"}],"a/b":1}`)
	put(t, s, ctx, `{"categories":["x"],"secret_field":1}`)
	all := func(uint32) bool { return true }
	for _, c := range []struct {
		ptr  string
		n    int
		want []string
	}{
		{"/categroy", 3, []string{"/category"}},
		{"/price/amont", 3, []string{"/price/amount"}},
		{"/price/curency", 3, []string{"/price/currency"}},
		{"/tags/0/nmae", 3, []string{"/tags/*/name"}}, // array levels read as *
		{"/a~1c", 3, []string{"/a~1b"}},               // escaped as a pointer
		{"/colour", 3, nil},
		{"/category", 3, nil}, // a path never suggests itself
		{"/categroy", 0, nil},
	} {
		if got := ix.Suggest(canon.MustParsePointer(c.ptr), c.n, all); !slices.Equal(got, c.want) {
			t.Errorf("Suggest(%s) = %q, want %q", c.ptr, got, c.want)
		}
	}
	// keep decides what may be named: a path only another reader's
	// documents have is not suggested.
	secret, _ := ix.Paths(canon.MustParsePointer("/secret_field"))
	hide := func(id uint32) bool { return !slices.Contains(secret, id) }
	if got := ix.Suggest(canon.MustParsePointer("/secret_feild"), 3, hide); len(got) != 0 {
		t.Errorf("Suggest named a path keep refused: %q", got)
	}
	if got := ix.Suggest(canon.MustParsePointer("/secret_feild"), 3, all); !slices.Equal(got, []string{"/secret_field"}) {
		t.Errorf("Suggest(/secret_feild) = %q", got)
	}
}

// BenchmarkSuggest: a miss against a dictionary of suggestScanMax paths,
// the most one Suggest compares.
func BenchmarkSuggest(b *testing.B) {
	s, ix := openIndexed(b)
	ctx := context.Background()
	var body []byte
	for i := 0; i < suggestScanMax; i += 500 {
		body = append(body[:0], '{')
		for j := i; j < i+500; j++ {
			if j > i {
				body = append(body, ',')
			}
			body = fmt.Appendf(body, `"field_%06d":{"amount":1}`, j)
		}
		put(b, s, ctx, string(append(body, '}')))
	}
	ptr := canon.MustParsePointer("/feild_000123/amount")
	b.ResetTimer()
	for range b.N {
		if got := ix.Suggest(ptr, 3, nil); len(got) == 0 {
			b.Fatal("no suggestion")
		}
	}
}
