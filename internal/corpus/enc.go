package corpus

import (
	"strconv"
	"time"
)

// enc appends compact JSON to b. It writes the commas itself by looking at
// the last byte written since start: the generator never writes whitespace,
// so a value or key needs a comma unless it follows '{', '[' or ':'. That
// keeps the kind writers free of separator bookkeeping and allocation-free.
type enc struct {
	b     []byte
	start int
}

func (e *enc) sep() {
	if len(e.b) == e.start {
		return
	}
	switch e.b[len(e.b)-1] {
	case '{', '[', ':':
		return
	}
	e.b = append(e.b, ',')
}

func (e *enc) obj()    { e.sep(); e.b = append(e.b, '{') }
func (e *enc) objEnd() { e.b = append(e.b, '}') }
func (e *enc) arr()    { e.sep(); e.b = append(e.b, '[') }
func (e *enc) arrEnd() { e.b = append(e.b, ']') }

// key writes a member name. Names are Go constants of the generator, so they
// need no escaping.
func (e *enc) key(k string) {
	e.sep()
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}

// str writes s as a JSON string, escaping what JSON requires. Generated
// strings almost never need escaping, so that case is a single append.
func (e *enc) str(s string) {
	e.strStart()
	if !needsEscape(s) {
		e.b = append(e.b, s...)
		e.strEnd()
		return
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			e.b = append(e.b, '\\', c)
		case c < 0x20:
			e.b = append(e.b, `\u00`...)
			e.b = append(e.b, hexDigits[c>>4], hexDigits[c&0xf])
		default:
			e.b = append(e.b, c)
		}
	}
	e.strEnd()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return true
		}
	}
	return false
}

const hexDigits = "0123456789abcdef"

// strStart, lit, num and strEnd compose a string from parts without
// building it first; lit's argument must need no escaping.
func (e *enc) strStart()       { e.sep(); e.b = append(e.b, '"') }
func (e *enc) strEnd()         { e.b = append(e.b, '"') }
func (e *enc) lit(s string)    { e.b = append(e.b, s...) }
func (e *enc) num(n uint64)    { e.b = strconv.AppendUint(e.b, n, 10) }
func (e *enc) int(n int)       { e.sep(); e.b = strconv.AppendInt(e.b, int64(n), 10) }
func (e *enc) raw(json string) { e.sep(); e.b = append(e.b, json...) }

func (e *enc) bool(v bool) {
	e.sep()
	e.b = strconv.AppendBool(e.b, v)
}

// name writes prefix, seed, '-', i inside an open string: the per-document
// names ("tool-1-42") that make identifiers unique across seeds.
func (e *enc) name(prefix string, seed uint64, i int) {
	e.lit(prefix)
	e.num(seed)
	e.b = append(e.b, '-')
	e.num(uint64(i))
}

// id writes a whole string made by name.
func (e *enc) id(prefix string, seed uint64, i int) {
	e.strStart()
	e.name(prefix, seed, i)
	e.strEnd()
}

// decimal writes cents as a decimal string with two places ("79.99"):
// money stays in strings so that canonical JSON keeps its scale.
func (e *enc) decimal(cents int64) {
	e.strStart()
	e.b = strconv.AppendInt(e.b, cents/100, 10)
	c := cents % 100
	e.b = append(e.b, '.', byte('0'+c/10), byte('0'+c%10))
	e.strEnd()
}

// milli writes m/1000 as a JSON number with up to three decimals.
func (e *enc) milli(m int) {
	e.sep()
	e.b = strconv.AppendInt(e.b, int64(m/1000), 10)
	if f := m % 1000; f != 0 {
		e.b = append(e.b, '.', byte('0'+f/100))
		if f%100 != 0 {
			e.b = append(e.b, byte('0'+f/10%10))
			if f%10 != 0 {
				e.b = append(e.b, byte('0'+f%10))
			}
		}
	}
}

// instant writes a Unix time as an RFC 3339 UTC timestamp string.
func (e *enc) instant(unix int64) {
	e.strStart()
	e.b = time.Unix(unix, 0).UTC().AppendFormat(e.b, time.RFC3339)
	e.strEnd()
}

// Member helpers: a key and its value in one call.
func (e *enc) kStr(k, v string) { e.key(k); e.str(v) }
func (e *enc) kInt(k string, v int) {
	e.key(k)
	e.int(v)
}
func (e *enc) kBool(k string, v bool) {
	e.key(k)
	e.bool(v)
}
