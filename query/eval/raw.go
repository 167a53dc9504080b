package eval

import (
	"bytes"
	"unsafe"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/go-json-experiment/json/jsontext"
)

// Evaluation over canonical bytes. A leaf's path is resolved over the bytes
// (canon.RawWalker) and each resolved value is turned into the canon value
// model only as far as its operator needs: scalars become views of the
// bytes that cost no allocation, containers are decoded, and arrays under
// contains are scanned element by element. Every value then goes through
// the same per-value test as Eval's, so the two paths cannot disagree on
// what an operator means.

// document is what a leaf's path resolves against: a decoded tree, or
// canonical bytes when isRaw is set.
type document struct {
	tree  any
	raw   []byte
	isRaw bool
}

// rawState is the Evaluator's scratch space for MatchRaw and EvalRaw.
type rawState struct {
	walker  canon.RawWalker
	visitFn func([]byte) bool // e.visitRaw, bound once
	unq     []byte            // the unescaped text of the current string value
	doc     *canon.Members    // the bytes' table of root members, during MatchMembers and EvalMembers
}

// MatchRaw is Match over doc, the canonical bytes of a document (RFC 8785,
// such as a stored document's body), without decoding it: its answer is
// Match's over the decoded doc. It does not allocate for leaves whose
// values are scalars (and arrays of scalars under contains), with or
// without wildcards, once the Evaluator has seen a document as deep. doc is
// read only during the call.
//
// On bytes that are not canonical JSON the answer is unspecified (but
// MatchRaw does not panic): a value that does not decode is of no type,
// so it equals nothing and compares with nothing.
func (e *Evaluator) MatchRaw(n *aql.Node, doc []byte) bool {
	ok := e.match(n, document{raw: doc, isRaw: true})
	e.scan = scan{}
	return ok
}

// EvalRaw is Eval over doc, the canonical bytes of a document, as MatchRaw
// is Match: the same answer and records equal to Eval's over the decoded
// doc. The records' CandidateValue fields are copies of doc's bytes that
// share nothing with doc, so doc may be released when EvalRaw returns;
// EvalRaw allocates for them.
func (e *Evaluator) EvalRaw(n *aql.Node, doc []byte, rec []aql.Evaluation) (bool, []aql.Evaluation) {
	ok, rec := e.eval(n, document{raw: doc, isRaw: true}, rec)
	e.scan = scan{}
	return ok, rec
}

// MatchMembers is MatchRaw over d's bytes, resolving the leaves' paths
// through d's table of root members, so that the leaves (and whatever else
// the caller resolves over d) skim the document's top level once between
// them. It allocates no more than MatchRaw. d is used only during the
// call; it may have been used before and may be used after.
func (e *Evaluator) MatchMembers(n *aql.Node, d *canon.Members) bool {
	e.raw.doc = d
	ok := e.match(n, document{raw: d.Bytes(), isRaw: true})
	e.scan, e.raw.doc = scan{}, nil
	return ok
}

// EvalMembers is EvalRaw over d's bytes, through d's table as MatchMembers.
func (e *Evaluator) EvalMembers(n *aql.Node, d *canon.Members, rec []aql.Evaluation) (bool, []aql.Evaluation) {
	e.raw.doc = d
	ok, rec := e.eval(n, document{raw: d.Bytes(), isRaw: true}, rec)
	e.scan, e.raw.doc = scan{}, nil
	return ok, rec
}

// resolveRaw scans the values p selects in doc into e.scan, through
// e.raw.doc's table when there is one (doc is then its bytes).
func (e *Evaluator) resolveRaw(p *canon.Pointer, doc []byte) {
	if e.raw.visitFn == nil {
		e.raw.visitFn = e.visitRaw
	}
	if e.raw.doc != nil {
		e.raw.walker.ResolveDoc(p, e.raw.doc, e.raw.visitFn)
		return
	}
	e.raw.walker.Resolve(p, doc, e.raw.visitFn)
}

// visitRaw is visit for a value in its bytes.
func (e *Evaluator) visitRaw(v []byte) bool {
	s := &e.scan
	if s.n == 0 {
		s.firstRaw = v
	}
	s.n++
	o := e.testRaw(s.leaf, v)
	if o == outPass {
		s.witnessRaw, s.passed = v, true
		return false
	}
	s.note(o)
	return true
}

// badValue stands for bytes that do not decode; no operator accepts it.
type badValue struct{}

// scalarKind is what scalar found at the start of a raw value.
type scalarKind uint8

const (
	notScalar scalarKind = iota // a container, or bytes that do not decode
	kindString
	kindNumber
	kindTrue
	kindFalse
	kindNull
)

// testRaw is test for a value in its bytes. The value is built here, in
// the canon value model, rather than returned by a helper, so that the
// interface holding a scalar view stays on the stack: test does not keep
// it.
func (e *Evaluator) testRaw(l *aql.Leaf, v []byte) outcome {
	if l.Operator == aql.OpContains && len(v) > 0 && v[0] == '[' {
		return e.containsRaw(v, l.Value)
	}
	var x any
	switch s, k := e.scalar(v); k {
	case kindString:
		x = s
	case kindNumber:
		x = canon.Number(s)
	case kindTrue:
		x = true
	case kindFalse:
		x = false
	case kindNull:
		x = nil
	default:
		x = decodeRaw(v)
	}
	return e.test(l, x)
}

// scalar reads the scalar v. Strings and numbers come back as views of v,
// or of e.raw.unq for strings with escapes: valid until the next call of
// scalar and while v is, never to be kept.
func (e *Evaluator) scalar(v []byte) (string, scalarKind) {
	if len(v) == 0 {
		return "", notScalar
	}
	switch v[0] {
	case '"':
		if s, ok := e.stringView(v); ok {
			return s, kindString
		}
	case 't':
		return "", literalKind(v, "true", kindTrue)
	case 'f':
		return "", literalKind(v, "false", kindFalse)
	case 'n':
		return "", literalKind(v, "null", kindNull)
	case '{', '[':
	default:
		return bytesView(v), kindNumber
	}
	return "", notScalar
}

func literalKind(v []byte, text string, k scalarKind) scalarKind {
	if string(v) != text {
		return notScalar
	}
	return k
}

// decodeRaw decodes a raw value into a new tree; bytes that do not decode
// are a badValue.
func decodeRaw(v []byte) any {
	x, err := canon.DecodeCanonical(v)
	if err != nil {
		return badValue{}
	}
	return x
}

// stringView is the text of the quoted string q, a view that allocates
// nothing.
func (e *Evaluator) stringView(q []byte) (string, bool) {
	if len(q) < 2 || q[len(q)-1] != '"' {
		return "", false
	}
	if body := q[1 : len(q)-1]; bytes.IndexByte(body, '\\') < 0 {
		return bytesView(body), true
	}
	u, err := jsontext.AppendUnquote(e.raw.unq[:0], q)
	e.raw.unq = u
	return bytesView(u), err == nil
}

// bytesView is b as a string without copying; b must not change while the
// string is in use.
func bytesView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// containsRaw is contains for an array v still in its bytes: each element
// is viewed in turn, so an array of scalars is searched without decoding.
func (e *Evaluator) containsRaw(arr []byte, want any) outcome {
	if w, ok := want.([]any); ok {
		for _, x := range w {
			if !e.memberRaw(x, arr) {
				return outFail
			}
		}
		return outPass
	}
	return boolOutcome(e.memberRaw(want, arr))
}

// memberRaw is member(want, elements of arr).
func (e *Evaluator) memberRaw(want any, arr []byte) bool {
	found := false
	canon.EachElement(arr, func(elem []byte) bool {
		found = e.equalRaw(want, elem)
		return !found
	})
	return found
}

// equalRaw is equal(want, v) for a value v in its bytes; see testRaw.
func (e *Evaluator) equalRaw(want any, v []byte) bool {
	var x any
	switch s, k := e.scalar(v); k {
	case kindString:
		x = s
	case kindNumber:
		x = canon.Number(s)
	case kindTrue:
		x = true
	case kindFalse:
		x = false
	case kindNull:
		x = nil
	default:
		x = decodeRaw(v)
	}
	return e.equal(want, x)
}

// candidateRaw is candidate for a scan over bytes: a copy of the
// witness's bytes, else of the first value's. They are a part of a
// canonical document, so already the value's RFC 8785 form: copied, not
// decoded and written again.
func (s *scan) candidateRaw() (canon.RawValue, bool) {
	v := s.firstRaw
	if s.passed {
		v = s.witnessRaw
	}
	if !s.passed && s.n == 0 {
		return nil, false
	}
	return canon.RawValue(bytes.Clone(v)), true
}
