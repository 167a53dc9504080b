package pairl

import (
	"errors"
	"strings"
)

// Lexing rules shared by every record form.
//
// §7.2 allows literal newlines inside quoted strings, so a record is one
// *logical* line: it ends at the first LF outside quotes. Where a quote may
// open is decided by the previous byte alone (line start, space, tab, '=',
// '{' or ','), the same rule in logicalEnd and in the tokenizers, so that
// splitting never depends on what the record turns out to be and canonical
// output splits exactly as it was read.

var (
	errUnterminated = errors.New("unterminated quoted string")
	errAfterQuote   = errors.New("text right after a closing quote")
	errNewline      = errors.New("line break outside a quoted string")
)

// opensQuote reports whether a '"' after prev starts a quoted string.
func opensQuote(prev byte) bool {
	switch prev {
	case '\n', ' ', '\t', '\r', '=', '{', ',':
		return true
	}
	return false
}

// blanks separate tokens. A lone CR counts as one: were it part of an
// atom, canonical text could put it right before an LF, and the next
// reading would strip it as a CR LF line ending.
const blanks = " \t\r"

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// logicalEnd returns the end of the logical line starting at pos: the first
// LF outside quotes. A quote still open at the end of input does not
// swallow the rest of the message: the line then ends at its first LF and
// open is true, and the record is reported as malformed.
func logicalEnd(s string, pos int) (end int, open bool) {
	inQuote, prev := false, byte('\n')
	for i := pos; i < len(s); i++ {
		c := s[i]
		switch {
		case inQuote && c == '\\' && i+1 < len(s) && s[i+1] == '"':
			i++
		case inQuote && c == '"':
			inQuote = false
		case !inQuote && c == '\n':
			return i, false
		case !inQuote && c == '"' && opensQuote(prev):
			inQuote = true
		}
		prev = s[i]
	}
	if !inQuote {
		return len(s), false
	}
	if nl := strings.IndexByte(s[pos:], '\n'); nl >= 0 {
		return pos + nl, true
	}
	return len(s), true
}

// readQuoted reads the quoted string starting at s[i] == '"' and returns
// its decoded text and the index after the closing quote. Only \" is an
// escape (§7.2); every other byte, LF and backslash included, is literal.
func readQuoted(s string, i int) (string, int, error) {
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && j+1 < len(s) && s[j+1] == '"':
			b.WriteByte('"')
			j++
		case s[j] == '"':
			return b.String(), j + 1, nil
		default:
			b.WriteByte(s[j])
		}
	}
	return "", len(s), errUnterminated
}

// appendValue writes v as it appears in canonical text. Re-escaping the
// decoded text reproduces the input exactly, because the input's only
// quotes inside a quoted string are escaped ones.
func appendValue(dst []byte, v Value) []byte {
	if !v.Quoted {
		return append(dst, v.Text...)
	}
	dst = append(dst, '"')
	dst = append(dst, strings.ReplaceAll(v.Text, `"`, `\"`)...)
	return append(dst, '"')
}

// appendField writes `key=value`, or the bare value when Key is "".
func appendField(dst []byte, f Field) []byte {
	if f.Key != "" {
		dst = append(dst, f.Key...)
		dst = append(dst, '=')
	}
	return appendValue(dst, f.Value)
}

// token is one space-separated piece of a record line.
type token struct {
	Field
	tag bool // an unquoted `@name=value` (a trailing tag candidate)
}

// tokenize splits a record body into `key=value` and bare tokens. With kv
// false (columnar rows) '=' has no meaning and every token is bare.
func tokenize(s string, kv bool) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		if isBlank(s[i]) {
			i++
			continue
		}
		t, next, err := readToken(s, i, kv)
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		i = next
	}
	return toks, nil
}

// readToken reads the token starting at s[i], which is not a blank.
func readToken(s string, i int, kv bool) (token, int, error) {
	if s[i] == '"' {
		v, next, err := readQuotedToken(s, i)
		return token{Field: Field{Value: v}}, next, err
	}
	j := i
	for j < len(s) && !isBlank(s[j]) && s[j] != '\n' && (!kv || s[j] != '=') {
		j++
	}
	if j == len(s) || s[j] != '=' || j == i {
		return bareAtom(s, i)
	}
	key := s[i:j]
	if j+1 < len(s) && s[j+1] == '"' {
		v, next, err := readQuotedToken(s, j+1)
		return token{Field: Field{Key: key, Value: v}}, next, err
	}
	v, next, err := atomAt(s, j+1)
	t := token{Field: Field{Key: key, Value: v}}
	t.tag = len(key) > 1 && key[0] == '@' && v.Text != ""
	return t, next, err
}

// readQuotedToken reads a quoted value that must end its token.
func readQuotedToken(s string, i int) (Value, int, error) {
	text, next, err := readQuoted(s, i)
	if err != nil {
		return Value{}, next, err
	}
	if next < len(s) && !isBlank(s[next]) {
		return Value{}, next, errAfterQuote
	}
	return Value{Text: text, Quoted: true}, next, nil
}

// bareAtom reads an unquoted token with no key.
func bareAtom(s string, i int) (token, int, error) {
	v, next, err := atomAt(s, i)
	return token{Field: Field{Value: v}}, next, err
}

// atomAt reads the atom starting at s[i] up to a blank or the end. An LF
// here means the logical line was split inside what the tokenizer sees as
// an atom; that is a malformed record, not a silent join.
func atomAt(s string, i int) (Value, int, error) {
	j := i
	for j < len(s) && !isBlank(s[j]) {
		if s[j] == '\n' {
			return Value{}, j, errNewline
		}
		j++
	}
	return Value{Text: s[i:j]}, j, nil
}

// peelTags removes trailing unquoted `@name=value` tokens. The last @rid
// becomes the record's RID; other tags (v1.3 @m, a repeated @rid) are kept
// in written order.
func peelTags(toks []token) (rest []token, tags []Field, rid string, hasRID bool) {
	n := len(toks)
	for n > 0 && toks[n-1].tag {
		n--
	}
	for _, t := range toks[n:] {
		tags = append(tags, Field{Key: t.Key[1:], Value: t.Value})
	}
	for i := len(tags) - 1; i >= 0; i-- {
		if tags[i].Key == "rid" {
			rid, hasRID = tags[i].Value.Text, true
			tags = append(tags[:i:i], tags[i+1:]...)
			break
		}
	}
	return toks[:n], tags, rid, hasRID
}

// fieldsOf drops the token wrappers.
func fieldsOf(toks []token) []Field {
	if len(toks) == 0 {
		return nil
	}
	fs := make([]Field, len(toks))
	for i, t := range toks {
		fs[i] = t.Field
	}
	return fs
}

// asciiLower lowercases ASCII letters only: RIDs are "case-insensitive
// ASCII" (§3.2), and Unicode case mapping could change their length.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
