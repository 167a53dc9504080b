package aql

import (
	"fmt"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

// A projection keeps no positions: the payload's arrays hold only the
// elements an include reaches, from index 0. An include that names an
// element by position ("/pricing/models/1/tiers") would come back at
// another pointer ("/pricing/models/0/tiers"), so the payload would not
// contain the pointer the intent asked for (RFC 0020 §3.3). Such an
// include is refused; `*` reaches every element and keeps the pointers
// true. An exclude may name a position: removing an element leaves no
// pointer the intent asked for.

// IncludeByPosition returns why include p is refused when one of its
// segments is an RFC 6901 array index ("0", or digits without a leading
// zero), with the fix; "" when it has none. Such a segment is read as an
// index even where it could name an object member: a member whose name
// is all digits is reached through `*`.
func IncludeByPosition(p *canon.Pointer) string {
	segs := p.Segments()
	for i, s := range segs {
		if s.Kind != canon.SegName || s.Index < 0 {
			continue
		}
		fix := make([]string, len(segs))
		for j, t := range segs {
			fix[j] = string(canon.EscapeSegment(nil, t.Name))
			if j == i {
				fix[j] = "*"
			}
		}
		return fmt.Sprintf("include %q names array element %d by its position, which a projection does not keep "+
			"(the payload's array holds only the included elements, from index 0); include %q for every element, "+
			"or the whole array (a member named by digits alone is reached through * too)",
			p.String(), s.Index, "/"+strings.Join(fix, "/"))
	}
	return ""
}
