package canon

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Default pointer limits. Pointers arrive inside untrusted intents and
// projections and are resolved once per candidate document, so their cost
// is bounded before any document is touched. Real paths in manifests and
// messages are a handful of segments and well under a hundred bytes.
const (
	DefaultPointerMaxBytes    = 1024
	DefaultPointerMaxSegments = 64
)

// PointerLimits bounds the pointers ParsePointerLimits accepts. A zero or
// negative field means its default.
type PointerLimits struct {
	MaxBytes    int // longest pointer text, in bytes (default 1024)
	MaxSegments int // most reference tokens (default 64)
}

func (lim PointerLimits) withDefaults() PointerLimits {
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultPointerMaxBytes
	}
	if lim.MaxSegments <= 0 {
		lim.MaxSegments = DefaultPointerMaxSegments
	}
	return lim
}

// PointerError reports why a pointer does not parse: the 1-based segment
// (0 when the pointer as a whole is at fault, e.g. a limit or a missing
// leading "/"), the byte offset in Pointer, and what to do about it.
type PointerError struct {
	Pointer string // the pointer text as given
	Segment int    // 1-based reference token, 0 for the whole pointer
	Offset  int    // byte offset of the problem in Pointer
	Reason  string // what is wrong and, where one exists, the fix
}

// Error names the pointer and the segment; long pointers are shortened so
// that a hostile input cannot flood a log line.
// Unwrap makes every PointerError match ErrPointer.
func (e *PointerError) Unwrap() error { return ErrPointer }

func (e *PointerError) Error() string {
	var b strings.Builder
	b.WriteString("canon: pointer ")
	b.WriteString(quoteShort(e.Pointer))
	if e.Segment > 0 {
		fmt.Fprintf(&b, ": segment %d %s", e.Segment, quoteShort(segmentText(e.Pointer, e.Segment)))
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// quoteShort quotes s, cut on a rune boundary after 64 bytes.
func quoteShort(s string) string {
	const max = 64
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s...(%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// segmentText returns the raw text of the n-th (1-based) reference token.
func segmentText(ptr string, n int) string {
	for i := 0; i < n; i++ {
		j := strings.IndexByte(ptr, '/')
		if j < 0 {
			return ""
		}
		ptr = ptr[j+1:]
	}
	if j := strings.IndexByte(ptr, '/'); j >= 0 {
		return ptr[:j]
	}
	return ptr
}

// SegmentKind tells what a reference token selects.
type SegmentKind uint8

const (
	// SegName selects one object member by name, or one array element when
	// the name is an RFC 6901 array index.
	SegName SegmentKind = iota
	// SegWildcard (`*`) selects every element of an array or every member
	// value of an object; it selects nothing in a scalar.
	SegWildcard
	// SegDescend (`**`) selects the node itself and every descendant, at
	// any depth, in pre-order.
	SegDescend
)

// String returns "name", "*" or "**".
func (k SegmentKind) String() string {
	switch k {
	case SegName:
		return "name"
	case SegWildcard:
		return "*"
	case SegDescend:
		return "**"
	}
	return "SegmentKind(" + strconv.Itoa(int(k)) + ")"
}

// Segment is one parsed reference token.
type Segment struct {
	Kind SegmentKind
	// Name is the unescaped token ("~0" and "~1" decoded); "*" or "**" for
	// the wildcards.
	Name string
	// Index is the array index Name denotes under RFC 6901 ("0" or digits
	// without a leading zero, fitting an int), or -1 when Name is not one.
	// "-" (the element after the last) is -1 too: it never resolves.
	Index int
}

// Pointer is a compiled extended JSON Pointer: RFC 6901 plus two wildcard
// segments, `*` (every child) and `**` (the node and all its descendants).
//
// It differs from RFC 6901 on purpose in two places. "/" means the whole
// document, like "" (OAP writes the root as "/"), so a top-level member
// named "" is reachable only through `/*`; deeper ones ("/a/") are not
// affected. And a token that is exactly `*` or `**` is always a wildcard:
// RFC 6901 has no escape for "*", so a member literally named "*" is
// reached only through the wildcard.
//
// Parse a pointer once and resolve it against many documents. A Pointer is
// immutable and safe for concurrent use. The zero Pointer and a nil
// *Pointer both address the whole document.
type Pointer struct {
	text    string
	segs    []Segment
	wild    bool  // some segment is * or **
	descend []int // indices of the ** segments, ascending
}

// ParsePointer parses s with the default PointerLimits. Errors are
// *PointerError.
func ParsePointer(s string) (*Pointer, error) {
	return ParsePointerLimits(s, PointerLimits{})
}

// MustParsePointer is ParsePointer for pointers fixed in code; it panics on
// an error, so never pass it input.
func MustParsePointer(s string) *Pointer {
	p, err := ParsePointer(s)
	if err != nil {
		panic(err)
	}
	return p
}

// ParsePointerLimits parses s, refusing pointers beyond lim. s must be
// empty or start with "/": the URI fragment form ("#/a%20b") is not
// accepted, its caller decodes it first. Errors are *PointerError.
func ParsePointerLimits(s string, lim PointerLimits) (*Pointer, error) {
	lim = lim.withDefaults()
	if len(s) > lim.MaxBytes {
		return nil, &PointerError{Pointer: s, Offset: lim.MaxBytes,
			Reason: fmt.Sprintf("%d bytes, over the limit MaxBytes=%d", len(s), lim.MaxBytes)}
	}
	if s == "" || s == "/" {
		return &Pointer{text: s}, nil
	}
	if s[0] != '/' {
		return nil, startError(s)
	}
	n := strings.Count(s, "/")
	if n > lim.MaxSegments {
		return nil, segmentLimitError(s, lim.MaxSegments)
	}
	return parseSegments(s, n)
}

// parseSegments splits s (which starts with "/") into n tokens.
func parseSegments(s string, n int) (*Pointer, error) {
	p := &Pointer{text: s, segs: make([]Segment, 0, n)}
	for num, off := 1, 1; num <= n; num++ {
		end := strings.IndexByte(s[off:], '/')
		if end < 0 {
			end = len(s)
		} else {
			end += off
		}
		seg, err := parseSegment(s, num, off, s[off:end])
		if err != nil {
			return nil, err
		}
		p.wild = p.wild || seg.Kind != SegName
		if seg.Kind == SegDescend {
			p.descend = append(p.descend, num-1)
		}
		p.segs = append(p.segs, seg)
		off = end + 1
	}
	return p, nil
}

// parseSegment parses token num, which starts at byte off of s.
func parseSegment(s string, num, off int, tok string) (Segment, error) {
	if !utf8.ValidString(tok) {
		bad := off + invalidUTF8At(tok)
		return Segment{}, &PointerError{Pointer: s, Segment: num, Offset: bad,
			Reason: fmt.Sprintf("invalid UTF-8 at byte %d (a pointer is Unicode text, RFC 6901 §3)", bad)}
	}
	switch tok {
	case "*":
		return Segment{Kind: SegWildcard, Name: tok, Index: -1}, nil
	case "**":
		return Segment{Kind: SegDescend, Name: tok, Index: -1}, nil
	}
	name, bad := unescapeToken(tok)
	if bad >= 0 {
		return Segment{}, &PointerError{Pointer: s, Segment: num, Offset: off + bad,
			Reason: fmt.Sprintf("invalid escape %q (use ~0 for \"~\" and ~1 for \"/\")", escapeAt(tok, bad))}
	}
	return Segment{Kind: SegName, Name: name, Index: arrayIndex(name)}, nil
}

func startError(s string) *PointerError {
	reason := `must start with "/", or be "" for the whole document`
	if s[0] == '#' {
		reason = `the URI fragment form ("#...") is not accepted: drop the "#" and percent-decode the rest (RFC 6901 §6)`
	}
	return &PointerError{Pointer: s, Reason: reason}
}

// segmentLimitError names the first segment past the limit.
func segmentLimitError(s string, max int) *PointerError {
	off := 0
	for i := 0; i <= max; i++ {
		off += strings.IndexByte(s[off:], '/') + 1
	}
	return &PointerError{Pointer: s, Segment: max + 1, Offset: off,
		Reason: fmt.Sprintf("more than MaxSegments=%d segments", max)}
}

func invalidUTF8At(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return 0
}

// unescapeToken decodes ~0 and ~1. It returns the offset of a bad escape,
// or -1. Tokens without "~" come back as they are, without allocating.
func unescapeToken(tok string) (string, int) {
	i := strings.IndexByte(tok, '~')
	if i < 0 {
		return tok, -1
	}
	var b strings.Builder
	b.Grow(len(tok))
	done := 0
	for ; i < len(tok); i++ {
		if tok[i] != '~' {
			continue
		}
		if i+1 == len(tok) || (tok[i+1] != '0' && tok[i+1] != '1') {
			return "", i
		}
		b.WriteString(tok[done:i])
		b.WriteByte("~/"[tok[i+1]-'0'])
		i++
		done = i + 1
	}
	b.WriteString(tok[done:])
	return b.String(), -1
}

// escapeAt returns the bad escape at tok[i]: "~" and the rune after it.
func escapeAt(tok string, i int) string {
	if i+1 >= len(tok) {
		return "~"
	}
	_, size := utf8.DecodeRuneInString(tok[i+1:])
	return tok[i : i+1+size]
}

// arrayIndex applies RFC 6901's array-index rule: "0", or digits with no
// leading zero. Anything else, and numbers beyond int, is -1.
func arrayIndex(name string) int {
	if name == "" || (len(name) > 1 && name[0] == '0') {
		return -1
	}
	n := 0
	for i := 0; i < len(name); i++ {
		d := int(name[i]) - '0'
		if d < 0 || d > 9 || n > (math.MaxInt-d)/10 {
			return -1
		}
		n = n*10 + d
	}
	return n
}

// String returns the pointer text as it was parsed.
func (p *Pointer) String() string {
	if p == nil {
		return ""
	}
	return p.text
}

// Segments returns the parsed reference tokens, a fresh slice on each call
// (so a caller cannot change the shared Pointer). The root has none.
func (p *Pointer) Segments() []Segment {
	if p == nil {
		return nil
	}
	return slices.Clone(p.segs)
}

// IsRoot reports whether p addresses the whole document ("" or "/").
func (p *Pointer) IsRoot() bool { return p == nil || len(p.segs) == 0 }

// HasWildcard reports whether p has a `*` or `**` segment, i.e. whether it
// can resolve to more than one value.
func (p *Pointer) HasWildcard() bool { return p != nil && p.wild }

// Resolve calls fn with every value p selects in doc, in document order,
// and stops as soon as fn returns false; it returns false if it stopped
// early. Document order is pre-order: a node before its descendants, array
// elements by index, object members in SortedKeys (RFC 8785) order, so the
// same document always yields the same sequence. A value selected along two
// routes (e.g. "/**/a/**" under "/a/a") is visited once.
//
// doc is a decoded document (see Decode); values of any other Go type are
// leaves. fn receives the document's own values, not copies. Resolve never
// panics, whatever tree it is given. Pointers without wildcards resolve
// without allocating. doc must be a tree: a map or slice that contains
// itself makes `**` walk without end.
func (p *Pointer) Resolve(doc any, fn func(v any) bool) bool {
	if !p.HasWildcard() {
		v, ok := p.lookup(doc)
		return !ok || fn(v)
	}
	w := ptrWalker{automaton: automaton{p.segs, p.descend}}
	return w.walk(doc, fn)
}

// ResolveAll appends to dst every value p selects in doc, in the order of
// Resolve.
func (p *Pointer) ResolveAll(doc any, dst []any) []any {
	if !p.HasWildcard() {
		if v, ok := p.lookup(doc); ok {
			dst = append(dst, v)
		}
		return dst
	}
	w := ptrWalker{automaton: automaton{p.segs, p.descend}}
	w.walk(doc, func(v any) bool {
		dst = append(dst, v)
		return true
	})
	return dst
}

// First returns the first value p selects in doc, in the order of Resolve,
// and whether there is one.
func (p *Pointer) First(doc any) (any, bool) {
	if !p.HasWildcard() {
		return p.lookup(doc)
	}
	var first any
	found := false
	w := ptrWalker{automaton: automaton{p.segs, p.descend}}
	w.walk(doc, func(v any) bool {
		first, found = v, true
		return false
	})
	return first, found
}

// lookup resolves a pointer without wildcards: a loop, not recursion, so
// it neither allocates nor grows the stack.
func (p *Pointer) lookup(doc any) (any, bool) {
	if p == nil {
		return doc, true
	}
	v := doc
	for i := range p.segs {
		var ok bool
		if v, ok = segmentChild(v, &p.segs[i]); !ok {
			return nil, false
		}
	}
	return v, true
}

// segmentChild selects the child a SegName segment names in v.
func segmentChild(v any, s *Segment) (any, bool) {
	switch c := v.(type) {
	case map[string]any:
		x, ok := c[s.Name]
		return x, ok
	case []any:
		if s.Index >= 0 && s.Index < len(c) {
			return c[s.Index], true
		}
	}
	return nil, false
}

// ptrWalker resolves pointers with wildcards. The pointer is run as a
// nondeterministic automaton over the tree: state i means "segment i is
// next", state len(segs) means "selected". Each node carries the set of
// states that reach it, so every node is visited once, in pre-order, and
// emitted once however many routes select it. The walk keeps an explicit
// stack, so a deep tree cannot overflow the goroutine stack.
type ptrWalker struct {
	automaton
	words  int // uint64 words per state set
	frames []ptrFrame
}

// ptrFrame is one node on the walk's stack and the cursor over its
// children.
type ptrFrame struct {
	set  []uint64 // states reaching this node, closed over **
	node any
	obj  map[string]any
	arr  []any
	keys []string // obj's names in SortedKeys order, when scanning
	only int      // the single name state to look up directly, or -1
	next int      // next child to consider
	end  int      // children to consider
}

// walk emits every node of doc that the pointer selects, in pre-order.
func (w *ptrWalker) walk(doc any, fn func(any) bool) bool {
	w.words = len(w.segs)/64 + 1 // states 0..len(segs)
	w.grow(1)
	root := &w.frames[0]
	root.set[0] = 1
	w.close(root.set)
	if !w.enter(root, doc, fn) {
		return false
	}
	for d := 0; d >= 0; {
		w.grow(d + 2)
		v, ok := w.nextChild(&w.frames[d], &w.frames[d+1])
		if !ok {
			d--
			continue
		}
		if !w.enter(&w.frames[d+1], v, fn) {
			return false
		}
		d++
	}
	return true
}

// grow makes sure frames 0..n-1 exist, reusing state sets between siblings.
func (w *ptrWalker) grow(n int) {
	for len(w.frames) < n {
		w.frames = append(w.frames, ptrFrame{set: make([]uint64, w.words)})
	}
}

// enter emits v if the walk selects it and prepares the scan of its
// children; it returns false when fn asks to stop.
func (w *ptrWalker) enter(f *ptrFrame, v any, fn func(any) bool) bool {
	n := len(w.segs)
	if f.set[n/64]&(1<<(n%64)) != 0 && !fn(v) {
		return false
	}
	f.node, f.obj, f.arr, f.next, f.end, f.only = v, nil, nil, 0, 0, -1
	live, only := w.liveStates(f.set)
	if live == 0 {
		return true
	}
	switch c := v.(type) {
	case map[string]any:
		f.obj = c
		if only >= 0 {
			f.only, f.end = only, 1
		} else {
			f.keys = appendSortedKeys(f.keys[:0], c)
			f.end = len(f.keys)
		}
	case []any:
		f.arr = c
		if only >= 0 {
			f.only, f.end = only, 1
		} else {
			f.end = len(c)
		}
	}
	return true
}

// nextChild finds the next child of f that some state survives into,
// leaving its states in c.set.
func (w *ptrWalker) nextChild(f, c *ptrFrame) (any, bool) {
	if f.only >= 0 && f.next < f.end {
		f.next = f.end
		return w.lookupChild(f, c)
	}
	for f.next < f.end {
		i := f.next
		f.next++
		if f.obj != nil {
			name := f.keys[i]
			if w.step(f.set, c.set, -1, func(n string) bool { return n == name }) {
				return f.obj[name], true
			}
		} else if w.step(f.set, c.set, i, nil) {
			return f.arr[i], true
		}
	}
	return nil, false
}

// lookupChild takes the direct route for a lone name state.
func (w *ptrWalker) lookupChild(f, c *ptrFrame) (any, bool) {
	v, ok := segmentChild(f.node, &w.segs[f.only])
	if ok {
		clear(c.set)
		c.set[(f.only+1)/64] |= 1 << ((f.only + 1) % 64)
		w.close(c.set)
	}
	return v, ok
}

// automaton is a pointer run as a nondeterministic automaton over a
// document: state i means "segment i is next", state len(segs) means
// "selected". Both walkers (over decoded trees and over canonical bytes)
// step through it, so they select the same values.
type automaton struct {
	segs    []Segment
	descend []int // indices of ** segments, ascending
}

// liveStates counts the states in set that still need a child, and returns
// the one state when it is a name: then the child is looked up instead of
// scanning every child. (More than one live state implies a ** among them.)
func (a *automaton) liveStates(set []uint64) (live, only int) {
	n := len(a.segs)
	only = -1
	for wi, word := range set {
		for ; word != 0; word &= word - 1 {
			if i := wi*64 + bits.TrailingZeros64(word); i < n {
				live++
				only = i
			}
		}
	}
	if live != 1 || a.segs[only].Kind != SegName {
		only = -1
	}
	return live, only
}

// step computes in to the states that survive into a child: the element
// at idx, or (idx < 0) the member whose name named accepts. It reports
// whether any state survives.
func (a *automaton) step(from, to []uint64, idx int, named func(name string) bool) bool {
	clear(to)
	n := len(a.segs)
	for wi, word := range from {
		for ; word != 0; word &= word - 1 {
			i := wi*64 + bits.TrailingZeros64(word)
			if i >= n {
				continue
			}
			next := i + 1
			switch s := &a.segs[i]; {
			case s.Kind == SegDescend:
				next = i
			case s.Kind == SegName && (idx >= 0 && s.Index != idx || idx < 0 && !named(s.Name)):
				continue
			}
			to[next/64] |= 1 << (next % 64)
		}
	}
	a.close(to)
	for _, word := range to {
		if word != 0 {
			return true
		}
	}
	return false
}

// close adds, for every ** state in set, the state after it: ** matches
// zero levels too. Ascending order lets "**/**" chain.
func (a *automaton) close(set []uint64) {
	for _, i := range a.descend {
		if set[i/64]&(1<<(i%64)) != 0 {
			set[(i+1)/64] |= 1 << ((i + 1) % 64)
		}
	}
}

// SortedKeys returns m's member names in RFC 8785 order: by UTF-16 code
// units, which is not Go's byte order. A name with a character above
// U+FFFF (a surrogate pair, 0xD800-0xDBFF first) sorts before one with a
// character in U+E000-U+FFFF at the same place, though its UTF-8 bytes are
// greater. Names that are not valid UTF-8 (impossible after Decode) sort
// as if each bad byte were U+FFFD, ties broken by bytes, so the order is
// still total.
func SortedKeys(m map[string]any) []string {
	return appendSortedKeys(make([]string, 0, len(m)), m)
}

func appendSortedKeys(dst []string, m map[string]any) []string {
	for k := range m {
		dst = append(dst, k)
	}
	slices.SortFunc(dst, compareUTF16)
	return dst
}

// EscapeSegment appends name to dst as an RFC 6901 reference token: "~"
// becomes "~0" and "/" becomes "~1". It does not add the leading "/".
// Note that the names "*" and "**" come out unchanged and so read back as
// wildcards.
func EscapeSegment(dst []byte, name string) []byte {
	if !strings.ContainsAny(name, "~/") {
		return append(dst, name...)
	}
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, name[i])
		}
	}
	return dst
}

// JoinPointer builds a pointer from unescaped member names (or decimal
// array indices), escaping each. No names gives "", the whole document.
// Two caveats of the extended syntax: the names "*" and "**" become
// wildcards, and the single name "" gives "/", which here also means the
// whole document.
func JoinPointer(segs ...string) string {
	n := 0
	for _, s := range segs {
		n += len(s) + 1
	}
	b := make([]byte, 0, n)
	for _, s := range segs {
		b = append(b, '/')
		b = EscapeSegment(b, s)
	}
	return string(b)
}
