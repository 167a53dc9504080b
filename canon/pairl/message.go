package pairl

import (
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

// Kind is the canon document kind of PAIRL messages.
const Kind canon.Kind = "pairl"

// Message is one parsed PAIRL message: its header lines and its body
// records, each with the line it was read from.
//
// A Message is not modified by any function of this package, so it is safe
// for concurrent use once Parse has returned it. Callers may edit the
// exported fields (to build a reply, say); the findings Parse recorded keep
// describing the bytes that were parsed.
type Message struct {
	Headers []Header // every header line, in input order
	Records []Record // every body record, in input order
	found   findings // syntax findings of Parse, replayed by Validate
}

// Header is one `@name value` line.
type Header struct {
	Name  string // without the '@'
	Value string // the rest of the line, trimmed
	Line  int
}

// RecordType is the kind of a body record (§3.1).
type RecordType uint8

// The record types. TypeOther holds `#tag …` records v1.1 does not define
// (later-version ones such as #call, and unknown ones such as #note);
// TypeOpaque holds lines that could not be read as a record at all.
const (
	TypeIntent RecordType = iota + 1
	TypeFact
	TypeRef
	TypeEvid
	TypeRule
	TypeCost
	TypeQuota
	TypeOther
	TypeOpaque
)

var typeNames = [...]string{TypeIntent: "intent", TypeFact: "fact", TypeRef: "ref",
	TypeEvid: "evid", TypeRule: "rule", TypeCost: "cost", TypeQuota: "quota",
	TypeOther: "other", TypeOpaque: "opaque"}

// String returns the lowercase name used in the JSON view ("fact", …).
func (t RecordType) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return "unknown"
}

// typeOfTag maps a `#tag` to its v1.1 record type.
func typeOfTag(tag string) RecordType {
	switch tag {
	case "fact":
		return TypeFact
	case "ref":
		return TypeRef
	case "evid":
		return TypeEvid
	case "rule":
		return TypeRule
	case "cost":
		return TypeCost
	case "quota":
		return TypeQuota
	}
	return TypeOther
}

// Value is an atom or a quoted string (§7). Text is the decoded value (the
// only escape, \", undone). Quoted is kept because v1.1 gives it meaning
// (an #evid claim must be quoted) and canonicalization never changes it.
type Value struct {
	Text   string
	Quoted bool
}

// Field is one `key=value` pair, or a bare token when Key is "" (bare
// tokens are errors in v1.1 records but carry later-version payloads such
// as `#s explore:3/6`).
type Field struct {
	Key   string
	Value Value
}

// Record is one body record.
type Record struct {
	Type   RecordType
	Line   int     // first line of the record
	Name   string  // intent name (TypeIntent) or tag without '#' (every # record)
	Fields []Field // intent parameters or record fields, in input order
	Tags   []Field // trailing @name=value tags other than the last @rid (e.g. v1.3 @m)
	RID    string  // the @rid, lowercased (its canonical form, §3.2); "" if none
	Raw    string  // TypeOpaque only: the line as read, trimmed
	Later  bool    // read from a later-version construct (a columnar row)

	blockEnd bool // last line of a columnar block kept verbatim
}

// Get returns the value of the first field named key.
func (r *Record) Get(key string) (Value, bool) {
	for _, f := range r.Fields {
		if f.Key == key {
			return f.Value, true
		}
	}
	return Value{}, false
}

// Header returns the first header named name (without '@').
func (m *Message) Header(name string) (Header, bool) {
	if m == nil {
		return Header{}, false
	}
	for _, h := range m.Headers {
		if h.Name == name {
			return h, true
		}
	}
	return Header{}, false
}

func (m *Message) headerValue(name string) string {
	h, _ := m.Header(name)
	return h.Value
}

// MID returns the @mid header, the message's natural key (`ref:msg:<id>`,
// as written). It is "" when the message has none, as with later-version
// messages that carry only `@id`; such a message has no natural key.
func (m *Message) MID() string { return m.headerValue("mid") }

// TS returns the @ts header as written.
func (m *Message) TS() string { return m.headerValue("ts") }

// Root returns the @root header, "" if absent.
func (m *Message) Root() string { return m.headerValue("root") }

// Parent returns the @parent header, "" if absent.
func (m *Message) Parent() string { return m.headerValue("parent") }

// DeclaredHash returns the @hash header as written, "" if absent.
func (m *Message) DeclaredHash() string { return m.headerValue("hash") }

// Deps returns the @deps references in written order; nil if absent.
func (m *Message) Deps() []string {
	h, ok := m.Header("deps")
	if !ok {
		return nil
	}
	return splitDeps(h.Value)
}

// splitDeps splits a @deps value at commas, trimming the spaces v1.1 does
// not allow but people write.
func splitDeps(v string) []string {
	parts := strings.Split(v, ",")
	for i := range parts {
		parts[i] = strings.Trim(parts[i], " \t")
	}
	return parts
}

// Amount is a @budget (`<float><unit>`) or @limit (`<int><unit>`) value
// (§2.3). Value keeps the decimal text exactly; money is never a float.
type Amount struct {
	Value string
	Unit  string
}

// Budget returns the parsed @budget header; false if absent or malformed.
func (m *Message) Budget() (Amount, bool) {
	h, ok := m.Header("budget")
	if !ok {
		return Amount{}, false
	}
	return parseAmount(h.Value, false)
}

// Limit returns the parsed @limit header; false if absent or malformed.
func (m *Message) Limit() (Amount, bool) {
	h, ok := m.Header("limit")
	if !ok {
		return Amount{}, false
	}
	return parseAmount(h.Value, true)
}

// parseAmount splits `0.50USD` into its number and unit. The unit is a
// letter followed by letters, digits or '_' (ISO 4217 or custom).
func parseAmount(s string, intOnly bool) (Amount, bool) {
	i := 0
	for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
		i++
	}
	num, unit := s[:i], s[i:]
	if !isDecimal(num) || (intOnly && strings.Contains(num, ".")) || !isUnit(unit) {
		return Amount{}, false
	}
	return Amount{Value: num, Unit: unit}, true
}

// isUnit reports whether s is a unit: a letter, then letters, digits or '_'.
func isUnit(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLetter(s[i]) && !isDigit(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}

// isDecimal reports whether s is an unsigned decimal: digits with an
// optional fraction ("0.02", "100000"). §6 calls these <float>; exponents
// are not allowed because money must stay exact.
func isDecimal(s string) bool {
	dot := strings.IndexByte(s, '.')
	if dot < 0 {
		return allDigits(s)
	}
	return allDigits(s[:dot]) && allDigits(s[dot+1:])
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isLower(c byte) bool  { return c >= 'a' && c <= 'z' }
func isAlnum(c byte) bool  { return isDigit(c) || isLetter(c) }
