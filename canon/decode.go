package canon

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Default limits. They are generous for agent documents (a large OAP
// manifest is tens of kilobytes) and small enough that one hostile document
// cannot take a server's memory.
const (
	DefaultMaxBytes   = 4 << 20 // 4 MiB per document
	DefaultMaxDepth   = 64      // nesting of arrays and objects
	DefaultMaxMembers = 10000   // members of one object, elements of one array
)

// Limits bound what Decode accepts. The zero value of a field means its
// default; see EnsureDefaults.
type Limits struct {
	MaxBytes   int // document size in bytes
	MaxDepth   int // nesting depth; a scalar has depth 0, [] has depth 1
	MaxMembers int // members of one object or elements of one array
	// The path limits (pathlimits.go) bound what one document adds to a
	// path index: the bytes of a member name, of one normalized path, and
	// the number and total bytes of the document's distinct paths.
	MaxNameBytes  int // bytes of one member name
	MaxPathBytes  int // bytes of one normalized path: each member name's bytes plus one, plus one per array level
	MaxPaths      int // distinct normalized paths below the root
	MaxPathsBytes int // bytes of those distinct paths, summed
}

// DefaultLimits returns the limits used when none are given.
func DefaultLimits() Limits {
	return Limits{MaxBytes: DefaultMaxBytes, MaxDepth: DefaultMaxDepth, MaxMembers: DefaultMaxMembers,
		MaxNameBytes: DefaultMaxNameBytes, MaxPathBytes: DefaultMaxPathBytes,
		MaxPaths: DefaultMaxPaths, MaxPathsBytes: DefaultMaxPathsBytes}
}

// EnsureDefaults fills zero fields with their defaults and returns l.
func (l *Limits) EnsureDefaults() *Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxMembers <= 0 {
		l.MaxMembers = d.MaxMembers
	}
	l.ensurePathDefaults(d)
	return l
}

func limitsOrDefault(l *Limits) Limits {
	if l == nil {
		return DefaultLimits()
	}
	c := *l
	return *c.EnsureDefaults()
}

// Number is a JSON number kept exactly as its literal text, so that no
// precision is lost between the input and a comparison.
type Number string

// String returns the literal text of n.
func (n Number) String() string { return string(n) }

// Decode strictly decodes one JSON document. lim may be nil for the
// defaults. The input must hold exactly one JSON value (surrounding
// whitespace allowed). Errors are *SyntaxError values wrapping ErrSyntax,
// ErrDuplicateName, ErrInvalidUTF8 or ErrLimit.
//
// A valid document is read in one pass over its bytes (decodeFast); the
// rest, and every error, go through jsontext's token decoder, which says
// where the document is broken.
func Decode(b []byte, lim *Limits) (any, error) {
	l := limitsOrDefault(lim)
	if len(b) > l.MaxBytes {
		return nil, &SyntaxError{Line: 1, Column: 1, Err: ErrLimit,
			Reason: fmt.Sprintf("document is %d bytes, over the limit of %d (Limits.MaxBytes)", len(b), l.MaxBytes),
			Fix:    "split the document or raise the document size limit"}
	}
	if v, ok := decodeFast(b, l); ok {
		return v, nil
	}
	return decodeTokens(b, l)
}

// decodeTokens is Decode through jsontext's token decoder.
func decodeTokens(b []byte, l Limits) (any, error) {
	d := decoder{src: b, lim: l, dec: jsontext.NewDecoder(bytes.NewReader(b))}
	v, err := d.value(0, nodePath{}, false)
	if err != nil {
		return nil, err
	}
	if _, err := d.dec.ReadToken(); err != io.EOF {
		if err == nil {
			return nil, d.errAt(d.dec.InputOffset(), "", ErrSyntax, "unexpected data after the top-level value",
				"a document holds one JSON value; use NDJSON or a JSON array for several")
		}
		return nil, d.wrap(err)
	}
	return v, nil
}

type decoder struct {
	src   []byte
	lim   Limits
	dec   *jsontext.Decoder
	paths pathSet // the document's distinct paths so far
}

// value reads the value at path p; elem says it is an array element,
// whose path is checked once its first token names it.
func (d *decoder) value(depth int, p nodePath, elem bool) (any, error) {
	start := d.dec.InputOffset()
	tok, err := d.dec.ReadToken()
	if err != nil {
		return nil, d.wrap(err)
	}
	if elem {
		if err := d.addPath(d.startOf(start), p); err != nil {
			return nil, err
		}
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case '"':
		return tok.String(), nil
	case '0':
		return Number(tok.String()), nil
	case '{':
		return d.object(depth+1, p)
	case '[':
		return d.array(depth+1, p)
	}
	return nil, d.errAt(d.dec.InputOffset(), "", ErrSyntax, "unexpected "+tok.Kind().String(), "")
}

func (d *decoder) object(depth int, p nodePath) (any, error) {
	if err := d.checkDepth(depth); err != nil {
		return nil, err
	}
	m := make(map[string]any)
	for d.dec.PeekKind() != '}' {
		start := d.dec.InputOffset()
		tok, err := d.dec.ReadToken()
		if err != nil {
			return nil, d.wrap(err)
		}
		name := tok.String()
		if len(m) == d.lim.MaxMembers {
			return nil, d.tooMany(string(d.dec.StackPointer()), "object member", "members per object")
		}
		if len(name) > d.lim.MaxNameBytes {
			return nil, d.nameTooLong(d.startOf(start), len(name))
		}
		mp := nodePath{memberKey(p.key, name), p.bytes + len(name) + 1}
		if err := d.addPath(d.startOf(start), mp); err != nil {
			return nil, err
		}
		v, err := d.value(depth, mp, false)
		if err != nil {
			return nil, err
		}
		m[name] = v
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, d.wrap(err)
	}
	return m, nil
}

func (d *decoder) array(depth int, p nodePath) (any, error) {
	if err := d.checkDepth(depth); err != nil {
		return nil, err
	}
	ep := nodePath{elementKey(p.key), p.bytes + 1}
	a := []any{}
	for d.dec.PeekKind() != ']' {
		if len(a) == d.lim.MaxMembers {
			// The pointer names the element past the limit, not the last
			// one read.
			ptr := string(d.dec.StackPointer())
			ptr = ptr[:strings.LastIndexByte(ptr, '/')+1] + strconv.Itoa(d.lim.MaxMembers)
			return nil, d.tooMany(ptr, "array element", "elements per array")
		}
		v, err := d.value(depth, ep, true)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, d.wrap(err)
	}
	return a, nil
}

func (d *decoder) checkDepth(depth int) error {
	if depth <= d.lim.MaxDepth {
		return nil
	}
	return d.errAt(d.dec.InputOffset()-1, string(d.dec.StackPointer()), ErrLimit,
		fmt.Sprintf("nesting depth %d is over the limit of %d (Limits.MaxDepth)", depth, d.lim.MaxDepth),
		"flatten the document or raise the depth limit")
}

// tooMany names the first member or element past the limit, so that the
// message says both how far the input went and where the limit stands.
func (d *decoder) tooMany(ptr, what, per string) error {
	return d.errAt(d.dec.InputOffset(), ptr, ErrLimit,
		fmt.Sprintf("%s %d is over the limit of %d %s (Limits.MaxMembers)", what, d.lim.MaxMembers+1, d.lim.MaxMembers, per),
		"split the collection or raise the members limit")
}

// wrap turns a jsontext error into a *SyntaxError with a line and a fix.
func (d *decoder) wrap(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return d.errAt(int64(len(d.src)), string(d.dec.StackPointer()), ErrSyntax,
			"unexpected end of input", "the document is truncated or a bracket is not closed")
	}
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return d.errAt(d.dec.InputOffset(), "", ErrSyntax, err.Error(), "")
	}
	sentinel, reason, fix := ErrSyntax, se.Err.Error(), ""
	switch {
	case errors.Is(se.Err, jsontext.ErrDuplicateName):
		sentinel, reason = ErrDuplicateName, "duplicate member name "+lastSegment(string(se.JSONPointer))
		fix = "remove or rename one of the two members"
	case strings.Contains(reason, "invalid UTF-8"):
		sentinel, fix = ErrInvalidUTF8, "re-encode the input as UTF-8"
	}
	return d.errAt(se.ByteOffset, string(se.JSONPointer), sentinel, reason, fix)
}

func lastSegment(ptr string) string {
	i := strings.LastIndexByte(ptr, '/')
	name := strings.NewReplacer("~1", "/", "~0", "~").Replace(ptr[i+1:])
	return fmt.Sprintf("%q", name)
}

func (d *decoder) errAt(off int64, ptr string, sentinel error, reason, fix string) *SyntaxError {
	line, col := LineColumn(d.src, off)
	return &SyntaxError{Offset: off, Line: line, Column: col, Pointer: ptr, Reason: reason, Fix: fix, Err: sentinel}
}

// LineColumn returns the 1-based line and byte column of offset off in src.
func LineColumn(src []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(src)) {
		off = int64(len(src))
	}
	before := src[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}
