package canon

import (
	"bytes"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/aqlstore/aqlstore/internal/jsonscan"
)

// run is the put path's canonicalizer: one pass over the input that
// validates it and writes its RFC 8785 form, with no tokens and no second
// walk. Members are written as they come and an object is reordered only
// when its names were not already in UTF-16 order (the order check also
// finds duplicate names, which an ordered object cannot hold). It accepts
// exactly what canonicalizeTokens accepts and writes the same bytes; on
// anything else — a syntax error, a duplicate name, invalid UTF-8, a
// number without an RFC 8785 form, a limit, nesting past fastMaxDepth —
// it reports false without saying why, and Canonicalize asks the token
// path, which explains the error. FuzzCanonicalizeOnePass holds the two
// equal.
//
// It appends to dst. When the root is an object, c.root then holds its
// members (offsets into the returned slice, in canonical order), so that
// ParseDocument reads the kind and the natural key without scanning the
// document again.
func (c *onePass) run(dst, b []byte, l *Limits) ([]byte, bool) {
	if len(b) >= maxOnePass {
		return dst, false
	}
	c.b, c.i, c.out, c.root, c.rootOK, c.paths = b, 0, dst, c.root[:0], false, pathBound{}
	c.mayRound = false
	c.maxDepth, c.maxMembers = min(l.MaxDepth, fastMaxDepth), l.MaxMembers
	c.maxName, c.maxPath = l.MaxNameBytes, l.MaxPathBytes
	start := len(dst)
	if !c.value(0, 0) {
		return dst, false
	}
	c.space()
	if c.i != len(b) {
		return dst, false
	}
	out := c.out
	if !c.paths.within(l) && !pathsWithinCanonical(out[start:], l) {
		return dst, false
	}
	return out, true
}

// maxOnePass bounds the documents the one pass writes, so that offsets
// into the input fit a memberSpan's int32s; larger ones (only under
// raised limits) take the token path.
const maxOnePass = 1 << 28

// onePass is the state of one canonicalization. Its scratch slices are
// kept across documents (onePassPool), so a put allocates nothing here
// once the pool is warm.
type onePass struct {
	b          []byte // the input
	i          int    // the next input byte
	out        []byte // the canonical bytes so far
	maxDepth   int
	maxMembers int
	maxName    int
	maxPath    int
	paths      pathBound

	members []memberSpan    // the members of the open objects, innermost last
	names   []byte          // the unescaped names that had escapes
	str     []byte          // an escaped string, unescaped
	sorted  []byte          // an object's members, reordered
	root    []memberOffsets // the root object's members
	rootOK  bool            // root holds them: the root is an object the one pass wrote
	// mayRound is set when a number literal may not be exactly its
	// canonical form (literalMayRound): Document.Rounded then looks.
	mayRound bool
}

// memberSpan is one member of an object being written: where its
// unescaped name lies (nameAt in the input, or ^nameAt in onePass.names
// when the name had escapes) and where `"name":value` lies in out. It
// holds no pointer, so that sorting members costs no write barriers.
type memberSpan struct {
	nameAt, nameLen int32
	colon           int32 // offset of the ':' from start
	start, end      int
}

// name returns m's unescaped name.
func (c *onePass) name(m *memberSpan) []byte {
	if m.nameAt < 0 {
		at := ^m.nameAt
		return c.names[at : at+m.nameLen]
	}
	return c.b[m.nameAt : m.nameAt+m.nameLen]
}

// memberOffsets locates a root member in canonical bytes: the quoted key
// is [start, colon), the value (colon, end).
type memberOffsets struct{ start, colon, end int }

var onePassPool = sync.Pool{New: func() any { return new(onePass) }}

// release drops every reference to the document and puts c back.
func (c *onePass) release() {
	c.members, c.names = c.members[:0], c.names[:0]
	c.b, c.out, c.rootOK, c.paths = nil, nil, false, pathBound{}
	onePassPool.Put(c)
}

// space skips JSON whitespace (RFC 8259 §2: space, tab, LF, CR).
func (c *onePass) space() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// value writes the value whose normalized path is pathBytes long.
func (c *onePass) value(depth, pathBytes int) bool {
	c.space()
	if c.i >= len(c.b) {
		return false
	}
	switch c.b[c.i] {
	case '{':
		return c.object(depth+1, pathBytes)
	case '[':
		return c.array(depth+1, pathBytes)
	case '"':
		return c.string()
	case 't':
		return c.literal("true")
	case 'f':
		return c.literal("false")
	case 'n':
		return c.literal("null")
	}
	return c.number()
}

func (c *onePass) literal(text string) bool {
	if len(c.b)-c.i < len(text) || string(c.b[c.i:c.i+len(text)]) != text {
		return false
	}
	c.i += len(text)
	c.out = append(c.out, text...)
	return true
}

func (c *onePass) object(depth, pathBytes int) bool {
	if depth > c.maxDepth {
		return false
	}
	c.i++ // {
	c.out = append(c.out, '{')
	body := len(c.out)
	c.space()
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		c.out = append(c.out, '}')
		return true
	}
	base := len(c.members)
	ordered := true
	for {
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != '"' || len(c.members)-base == c.maxMembers {
			return false
		}
		start := len(c.out)
		m := memberSpan{start: start}
		if !c.memberName(&m) {
			return false
		}
		name := c.name(&m)
		c.space()
		if c.i >= len(c.b) || c.b[c.i] != ':' {
			return false
		}
		c.i++
		n := pathBytes + len(name) + 1
		if len(name) > c.maxName || n > c.maxPath {
			return false
		}
		c.paths.add(n)
		if k := len(c.members); k > base {
			switch d := compareUTF16(c.name(&c.members[k-1]), name); {
			case d == 0:
				return false // a duplicate name
			case d > 0:
				ordered = false
			}
		}
		m.colon = int32(len(c.out) - start)
		c.members = append(c.members, m)
		c.out = append(c.out, ':')
		k := len(c.members) - 1
		if !c.value(depth, n) {
			return false
		}
		c.members[k].end = len(c.out)
		more, ok := c.next('}')
		if !ok {
			return false
		}
		if !more {
			break
		}
		c.out = append(c.out, ',')
	}
	members := c.members[base:]
	if !ordered && !c.reorder(members, body) {
		return false
	}
	if depth == 1 {
		c.recordRoot(members)
	}
	c.members = c.members[:base]
	c.out = append(c.out, '}')
	return true
}

// reorder sorts the members of the object whose body (the bytes between
// its braces) starts at out[body], as RFC 8785 §3.2.3 orders them, and
// moves their bytes to match. Equal names, which the order check only
// sees when neighbours, are a duplicate: false.
func (c *onePass) reorder(members []memberSpan, body int) bool {
	c.sortMembers(members)
	c.sorted = c.sorted[:0]
	for k := range members {
		m := &members[k]
		if k > 0 {
			if bytes.Equal(c.name(&members[k-1]), c.name(m)) {
				return false
			}
			c.sorted = append(c.sorted, ',')
		}
		c.sorted = append(c.sorted, c.out[m.start:m.end]...)
	}
	copy(c.out[body:], c.sorted)
	// The spans now follow the canonical order.
	at := body
	for k := range members {
		m := &members[k]
		m.start, m.end = at, at+m.end-m.start
		at = m.end + 1
	}
	return true
}

// sortMembers sorts members by name in UTF-16 order. Objects are mostly
// small (a manifest's have a dozen members at most), where an insertion
// sort costs less than a general one (pdqsort was a quarter of a
// canonicalization's profile).
func (c *onePass) sortMembers(members []memberSpan) {
	if len(members) > 24 {
		slices.SortFunc(members, func(a, b memberSpan) int { return compareUTF16(c.name(&a), c.name(&b)) })
		return
	}
	for k := 1; k < len(members); k++ {
		m := members[k]
		name := c.name(&m)
		j := k
		for j > 0 && compareUTF16(c.name(&members[j-1]), name) > 0 {
			members[j] = members[j-1]
			j--
		}
		members[j] = m
	}
}

// recordRoot keeps the root object's members for ParseDocument.
func (c *onePass) recordRoot(members []memberSpan) {
	for k := range members {
		m := &members[k]
		c.root = append(c.root, memberOffsets{m.start, m.start + int(m.colon), m.end})
	}
	c.rootOK = true
}

func (c *onePass) array(depth, pathBytes int) bool {
	if depth > c.maxDepth {
		return false
	}
	c.i++ // [
	c.out = append(c.out, '[')
	c.space()
	if c.i < len(c.b) && c.b[c.i] == ']' {
		c.i++
		c.out = append(c.out, ']')
		return true
	}
	for n := 0; ; n++ {
		if n == c.maxMembers || pathBytes+1 > c.maxPath {
			return false
		}
		c.paths.add(pathBytes + 1)
		if !c.value(depth, pathBytes+1) {
			return false
		}
		more, ok := c.next(']')
		if !ok {
			return false
		}
		if !more {
			c.out = append(c.out, ']')
			return true
		}
		c.out = append(c.out, ',')
	}
}

// next reads what follows a member or an element: a comma (more), or
// the container's closing bracket (ok, not written); anything else is not
// ok.
func (c *onePass) next(closing byte) (more, ok bool) {
	c.space()
	if c.i >= len(c.b) {
		return false, false
	}
	switch c.b[c.i] {
	case ',':
		c.i++
		return true, true
	case closing:
		c.i++
		return false, true
	}
	return false, false
}

// string writes the string value at c.i in canonical form.
func (c *onePass) string() bool {
	_, _, ok := c.quoted()
	return ok
}

// memberName writes the member name at c.i in canonical form and sets
// where m's unescaped name lies.
func (c *onePass) memberName(m *memberSpan) bool {
	start := c.i
	body, escaped, ok := c.quoted()
	if !ok {
		return false
	}
	m.nameLen = int32(len(body))
	if escaped { // body is c.str: keep it in names
		m.nameAt = ^int32(len(c.names))
		c.names = append(c.names, body...)
		return true
	}
	m.nameAt = int32(start + 1)
	return true
}

// quoted writes the string at c.i in canonical form and returns its
// unescaped bytes: the input's own when it has no escape (then they are
// checked for control characters and UTF-8 and copied as they are), else
// c.str (escaped), where jsontext unescaped it under the token decoder's
// own rules before it was quoted again as RFC 8785 does (§3.2.2.2).
func (c *onePass) quoted() (body []byte, escaped, ok bool) {
	b, start := c.b, c.i
	ascii := true
	for j := start + 1; j < len(b); j++ {
		j = jsonscan.PlainEnd(b, j)
		if j == len(b) {
			break
		}
		switch ch := b[j]; {
		case ch == '"':
			body := b[start+1 : j]
			if !ascii && !utf8.Valid(body) {
				return nil, false, false
			}
			c.i = j + 1
			c.out = append(c.out, b[start:j+1]...)
			return body, false, true
		case ch == '\\':
			body, ok := c.escaped()
			return body, true, ok
		case ch < ' ':
			return nil, false, false
		default:
			ascii = false
		}
	}
	return nil, false, false
}

// escaped writes the string at c.i, which holds an escape, and returns
// it unescaped in c.str.
func (c *onePass) escaped() ([]byte, bool) {
	b, start := c.b, c.i
	end := -1
	for j := start + 1; j < len(b); j++ {
		if b[j] == '\\' {
			j++
		} else if b[j] == '"' {
			end = j + 1
			break
		}
	}
	if end < 0 {
		return nil, false
	}
	u, err := jsontext.AppendUnquote(c.str[:0], b[start:end])
	c.str = u
	if err != nil {
		return nil, false
	}
	if c.out, err = jsontext.AppendQuote(c.out, u); err != nil {
		return nil, false
	}
	c.i = end
	return u, true
}

// number writes the number at c.i, read by RFC 8259's grammar; a short
// integer is already canonical, any other goes through AppendNumber, the
// one number formatter.
func (c *onePass) number() bool {
	b, start := c.b, c.i
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return false
		}
		i = j
	}
	c.i = i
	text := b[start:i]
	if shortInteger(text) {
		c.out = append(c.out, text...)
		return true
	}
	if literalMayRound(text) {
		c.mayRound = true
	}
	out, err := AppendNumber(c.out, Number(text))
	c.out = out
	return err == nil
}
