package aql

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// FuzzParse checks that Parse never panics, that a refusal is always a
// well-formed *InvalidError, and that an accepted intent is a fixed point:
// its Document re-encoded with canon.AppendValue parses again to the same
// compiled tree. Seeds: the project's fixtures and every bad case; inputs
// that once failed stay in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "valid", "*.json"))
	for _, name := range files {
		f.Add(readFile(f, name))
	}
	for _, bc := range badCases {
		f.Add(bc.input(f))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := Parse(b, nil)
		if err != nil {
			checkRefusal(t, err)
			return
		}
		checkTree(t, in.Constraints)
		again, err := Parse(canon.AppendValue(nil, in.Document), nil)
		if err != nil {
			t.Fatalf("re-encoded intent does not parse: %v", err)
		}
		if !slices.Equal(dumpTree(in.Constraints), dumpTree(again.Constraints)) || in.IntentID != again.IntentID {
			t.Fatalf("re-encoded intent compiles differently")
		}
	})
}

func checkRefusal(t *testing.T, err error) {
	var ie *InvalidError
	if !errors.As(err, &ie) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("error %T is not an *InvalidError: %v", err, err)
	}
	if n := len(ie.Problems); n == 0 || n > DefaultMaxProblems+1 {
		t.Fatalf("%d problems", n)
	}
	for _, p := range ie.Problems {
		if p.Code == "" || p.Message == "" || (p.Pointer != "" && !strings.HasPrefix(p.Pointer, "/")) {
			t.Fatalf("malformed problem %+v", p)
		}
	}
}

// checkTree checks the compiled tree's invariants: no hole, a Not has one
// child, a leaf has its operand compiled as its operator needs.
func checkTree(t *testing.T, n *Node) {
	if n == nil || !strings.HasPrefix(n.Pointer, "/constraints") {
		t.Fatalf("bad node %+v", n)
	}
	switch n.Kind {
	case NodeLeaf:
		checkLeaf(t, n.Leaf)
	case NodeNot:
		if len(n.Children) != 1 {
			t.Fatalf("not with %d children", len(n.Children))
		}
	case NodeAllOf, NodeAnyOf:
		if len(n.Children) == 0 {
			t.Fatalf("empty %v at %s", n.Kind, n.Pointer)
		}
	default:
		t.Fatalf("kind %v", n.Kind)
	}
	for _, c := range n.Children {
		checkTree(t, c)
	}
}

func checkLeaf(t *testing.T, l *Leaf) {
	if l == nil || l.Path == nil {
		t.Fatalf("leaf without a path: %+v", l)
	}
	ok := true
	switch l.Operator {
	case OpLt, OpLte, OpGt, OpGte:
		ok = (l.Decimal != nil) != l.IsTime
	case OpBefore, OpAfter:
		ok = l.IsTime
	case OpIn, OpNotIn:
		ok = l.Set != nil
	case OpMatches:
		ok = l.Regex != nil && l.Regex.MatchTimeout == DefaultRegexTimeout
	case OpWithin, OpOutside:
		ok = l.Interval.Start.Compare(l.Interval.End) <= 0
	}
	if !ok {
		t.Fatalf("%v leaf compiled wrongly: %+v", l.Operator, l)
	}
}
