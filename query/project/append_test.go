package project

import (
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/aqlstore/aqlstore/internal/race"
)

// BenchmarkPayloadBytes gives a generated manifest's payload as bytes, as
// a response needs it, two ways: the projection decoded to a map and
// written again (ApplyMembers + AppendValue, the old path), and the
// selected ranges copied (AppendMembers).
func BenchmarkPayloadBytes(b *testing.B) {
	body, _ := corpus.Document("manifest", 1, 7, nil)
	c, _ := canonicalDoc(b, body)
	for _, include := range [][]string{{"/tool/id"}, {"/tool", "/pricing"}, {"/"}} {
		inc := pointers(b, include)
		b.Run(include[0]+"/map", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, _, _ := ApplyMembers(canon.NewMembers(c), inc, nil)
				_ = canon.AppendValue(nil, p)
			}
		})
		b.Run(include[0]+"/bytes", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _, _ = AppendMembers(nil, canon.NewMembers(c), inc, nil)
			}
		})
	}
}

// TestAppendOnePath: one include pointer without wildcards, the common
// projection, is written without allocating (no marks) and exactly as
// the general walk writes it, through members and array elements, found
// or missing, on a fresh table and on one a resolve has half built.
func TestAppendOnePath(t *testing.T) {
	c, tree := canonicalDoc(t, []byte(`{"a":{"b":[1,{"c":"x","d":[true]}],"e":null},"f":{"g":2},"z":{"y":"é\u0001"}}`))
	for _, path := range []string{"/a/b/1/c", "/a/b/0", "/a/e", "/f", "/z/y", "/a/b/1/d/0", "/a/b/2", "/a/q", "/zz", "/a/b/x"} {
		inc := pointers(t, []string{path})
		if d := rawAgreement(c, tree, inc, nil); d != "" {
			t.Errorf("%s: %s", path, d)
		}
		d := canon.NewMembers(c)
		pointers(t, []string{"/z"})[0].ResolveMembers(d, func([]byte) bool { return true })
		buf := make([]byte, 0, 256)
		allocs := testing.AllocsPerRun(20, func() {
			buf, _, _ = AppendMembers(buf[:0], d, inc, nil)
		})
		if want := canon.AppendValue(nil, mustApply(t, tree, inc)); string(buf) != string(want) {
			t.Errorf("%s: wrote %s, want %s", path, buf, want)
		}
		if found := path != "/a/b/2" && path != "/a/q" && path != "/zz" && path != "/a/b/x"; found && allocs > 0 && !race.Enabled {
			t.Errorf("%s: %.0f allocations, want none", path, allocs)
		}
	}
}

func mustApply(t *testing.T, tree any, include []*canon.Pointer) map[string]any {
	t.Helper()
	p, _, err := Apply(tree, include, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
