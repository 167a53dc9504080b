package query

import (
	"bytes"

	"github.com/aqlstore/aqlstore/query/aql"
)

// needles is a condition on a document's canonical bytes that every
// document satisfying a constraint tree meets: the strings its eq, in
// and contains leaves want must occur in the bytes, as RFC 8785 writes
// them, in the combination all_of and any_of ask for. bytes.Contains runs
// at memory speed, so a full scan tells most documents that fail a
// selective constraint without walking their JSON. The condition is
// necessary, never sufficient: a document that meets it is matched
// exactly; one that does not cannot satisfy the constraints.
//
// It holds because a string without a quote, backslash or control
// character is written as its own bytes, and a document without any
// backslash holds every one of its strings so: a value equal to the
// wanted string then appears, quoted, among the bytes (a key spelled the
// same only makes a false positive). A document with a backslash
// anywhere is not judged by its bytes (mayMatch says yes).
type needles struct {
	lit  []byte     // a leaf: the bytes contain lit
	any  bool       // combinator: some child holds (any_of), else every one (all_of)
	kids []*needles // combinator
}

// needlesOf returns the condition of constraint tree n, or nil when it
// sets none (a not, a numeric or range leaf, a string with characters
// that are written escaped).
func needlesOf(n *aql.Node) *needles {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case aql.NodeLeaf:
		return leafNeedles(n.Leaf)
	case aql.NodeAllOf:
		var kids []*needles
		for _, c := range n.Children {
			if nd := needlesOf(c); nd != nil {
				kids = append(kids, nd)
			}
		}
		return combine(kids, false)
	case aql.NodeAnyOf:
		var kids []*needles
		for _, c := range n.Children {
			nd := needlesOf(c)
			if nd == nil {
				return nil // that child may hold without any needle
			}
			kids = append(kids, nd)
		}
		return combine(kids, true)
	}
	return nil // not: failing leaves leave no trace in the bytes
}

// combine is the all_of (any false) or any_of of kids.
func combine(kids []*needles, any bool) *needles {
	switch len(kids) {
	case 0:
		return nil
	case 1:
		return kids[0]
	}
	return &needles{any: any, kids: kids}
}

// leafNeedles is the condition of one leaf.
func leafNeedles(l *aql.Leaf) *needles {
	switch l.Operator {
	case aql.OpEq:
		return quoted(l.Value)
	case aql.OpIn:
		var kids []*needles
		for _, v := range l.Set {
			nd := quoted(v)
			if nd == nil {
				return nil
			}
			kids = append(kids, nd)
		}
		return combine(kids, true)
	case aql.OpContains:
		switch v := l.Value.(type) {
		case string: // a substring of a string, or an element of an array
			if v == "" || !plain(v) {
				return nil
			}
			return &needles{lit: []byte(v)}
		case []any: // every element occurs in an array
			var kids []*needles
			for _, e := range v {
				if nd := quoted(e); nd != nil {
					kids = append(kids, nd)
				}
			}
			return combine(kids, false)
		}
	}
	return nil
}

// quoted is the condition that string v occurs as a JSON string; nil for
// other values.
func quoted(v any) *needles {
	s, ok := v.(string)
	if !ok || !plain(s) {
		return nil
	}
	return &needles{lit: append(append([]byte{'"'}, s...), '"')}
}

// plain reports whether s is written as its own bytes inside a JSON
// string: no quote, backslash or control character.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// mayMatch reports whether the document b may satisfy the constraints;
// false means it surely does not. A nil condition allows every document.
func (nd *needles) mayMatch(b []byte) bool {
	if nd == nil || bytes.IndexByte(b, '\\') >= 0 {
		return true
	}
	return nd.holds(b)
}

func (nd *needles) holds(b []byte) bool {
	if nd.kids == nil {
		return bytes.Contains(b, nd.lit)
	}
	for _, k := range nd.kids {
		if k.holds(b) == nd.any {
			return nd.any
		}
	}
	return !nd.any
}
