package index

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// gramKeys counts the trigram and short-string keys of path ptr.
func gramKeys(t *testing.T, s *store.Store, ix *Index, ptr string) int {
	t.Helper()
	ids, _ := ix.Paths(canon.MustParsePointer(ptr))
	n := 0
	for _, id := range ids {
		for _, fam := range []byte{famGram, famShort} {
			err := s.IndexReader().Scan(appendPathKey(nil, fam, id), appendPathKey(nil, fam, id+1), func(_, _ []byte) error {
				n++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return n
}

func configured(t *testing.T, cfg Config) (string, *store.Store, *Index) {
	t.Helper()
	dir := t.TempDir()
	if err := Configure(context.Background(), dir, nil, cfg, 10, nil); err != nil {
		t.Fatal(err)
	}
	s, ix, err := Open(dir, &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return dir, s, ix
}

func TestTrigramsOnlyAtTextPaths(t *testing.T) {
	ctx := context.Background()
	s, ix := openIndexed(t)
	put(t, s, ctx, `{"name":"hello world","desc":"a quiet evening"}`)
	if n := gramKeys(t, s, ix, "/**"); n != 0 {
		t.Fatalf("a store with no text paths wrote %d trigram keys", n)
	}

	_, s, ix = configured(t, Config{TextPaths: []string{"/desc"}})
	put(t, s, ctx, `{"name":"hello world","desc":"a quiet evening"}`)
	if n := gramKeys(t, s, ix, "/desc"); n == 0 {
		t.Error("no trigram keys at the text path /desc")
	}
	if n := gramKeys(t, s, ix, "/name"); n != 0 {
		t.Errorf("%d trigram keys at /name, which is not a text path", n)
	}
}

func TestContainsAtTextAndOtherPaths(t *testing.T) {
	ctx := context.Background()
	_, s, ix := configured(t, Config{TextPaths: []string{"/desc"}})
	long := func(word string) string { return strings.Repeat("lorem ipsum ", 40) + word }
	a := put(t, s, ctx, `{"desc":"`+long("needle")+`","note":"`+long("needle")+`","tag":"red apple"}`)
	b := put(t, s, ctx, `{"desc":"`+long("thread")+`","note":"`+long("thread")+`","tag":"green pear"}`)

	grams := func(ptr, needle string) []uint32 {
		ids, _ := ix.Paths(canon.MustParsePointer(ptr))
		bm, err := ix.Grams(ids, needle)
		if err != nil {
			t.Fatal(err)
		}
		return bm.ToArray()
	}
	// A text path: the trigrams of a 500-byte string narrow to the one
	// document that holds the needle.
	if got := grams("/desc", "needle"); len(got) != 1 || got[0] != a.Num {
		t.Errorf("contains at the text path /desc: %v, want [%d]", got, a.Num)
	}
	// Elsewhere a string too long for an equality posting is a lossy
	// candidate (checked exactly later) ...
	if got := grams("/note", "needle"); len(got) != 2 {
		t.Errorf("contains at /note: %v, want both documents as lossy candidates", got)
	}
	// ... and a short one is answered from the value dictionary.
	if got := grams("/tag", "pear"); len(got) != 1 || got[0] != b.Num {
		t.Errorf("contains at /tag: %v, want [%d]", got, b.Num)
	}
}

func TestConfigureSurvivesReindexAndReopen(t *testing.T) {
	ctx := context.Background()
	dir, s, _ := configured(t, Config{TextPaths: []string{"/desc", "/items/*/title"}})
	put(t, s, ctx, `{"desc":"alpha beta","items":[{"title":"gamma"}]}`)
	s.Close()
	if err := Reindex(ctx, dir, nil, 10, nil); err != nil {
		t.Fatal(err)
	}
	s, ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := ix.Config().TextPaths; len(got) != 2 || got[0] != "/desc" || got[1] != "/items/*/title" {
		t.Fatalf("text paths after reindex and reopen: %q", got)
	}
	if n := gramKeys(t, s, ix, "/items/*/title"); n == 0 {
		t.Error("the reindex dropped the trigrams of /items/*/title")
	}
	rep, err := Check(ctx, s)
	if err != nil || !rep.OK() {
		t.Fatalf("check: %v %+v", err, rep)
	}
}

func TestConfigureRefusesBadPointer(t *testing.T) {
	err := Configure(context.Background(), t.TempDir(), nil, Config{TextPaths: []string{"/ok", "desc"}}, 10, nil)
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), `text path 2 ("desc")`) {
		t.Fatalf("got %v", err)
	}
}

// TestConfigureKeepsEachPathOnce: a text path given twice is kept once,
// where it came first.
func TestConfigureKeepsEachPathOnce(t *testing.T) {
	dir := t.TempDir()
	if err := Configure(context.Background(), dir, nil, Config{TextPaths: []string{"/desc", "/title", "/desc"}}, 10, nil); err != nil {
		t.Fatal(err)
	}
	s, ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := ix.Config().TextPaths; !slices.Equal(got, []string{"/desc", "/title"}) {
		t.Fatalf("text paths %q, want [/desc /title]", got)
	}
}
