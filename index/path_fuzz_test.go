package index

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/canon"
)

// FuzzPathSegments reads any bytes as a path of the path dictionary (the
// keys Load reads back from disk): decoding never panics, and gives the
// segments before any damage, which encode back to a path that decodes
// to the same segments (not always a prefix of the input: a damaged length
// may be a uvarint written longer than needed). String names a path of
// UTF-8 names as a pointer that parses, one segment per decoded segment.
func FuzzPathSegments(f *testing.F) {
	f.Add("")
	f.Add(string(Path("").appendMember("a").appendArray().appendMember("b~/c")))
	f.Add(string(Path("").appendMember(strings.Repeat("x", 200)).appendArray().appendArray()))
	f.Add("k\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01")
	f.Add("ka")
	f.Add("x")
	f.Fuzz(func(t *testing.T, s string) {
		p := Path(s)
		segs := p.segments()
		var again Path
		for _, seg := range segs {
			if seg.array {
				again = again.appendArray()
			} else {
				again = again.appendMember(seg.name)
			}
		}
		if !reflect.DeepEqual(again.segments(), segs) {
			t.Fatalf("%q decodes to %+v, which encodes as %q", s, segs, string(again))
		}
		for _, seg := range segs {
			if !utf8.ValidString(seg.name) {
				return // a member name of canonical JSON is UTF-8: only a damaged dictionary holds this
			}
		}
		ptr, err := canon.ParsePointerLimits(p.String(), canon.PointerLimits{MaxBytes: 1 << 30, MaxSegments: 1 << 30})
		// "/" is the whole document (DESIGN.md), so a lone member named ""
		// shows as the root: the one path whose name has fewer segments.
		if err != nil || len(segs) > 0 && len(ptr.Segments()) != len(segs) && p.String() != "/" {
			t.Fatalf("%q names %q, %v", s, p.String(), err)
		}
	})
}
