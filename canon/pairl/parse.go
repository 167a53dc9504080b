package pairl

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Parse reads one PAIRL message with the default Limits. See ParseLimits.
func Parse(b []byte, mode Mode) (*Message, []Problem, error) {
	return ParseLimits(b, mode, nil)
}

// ParseLimits reads one PAIRL message. lim may be nil for the defaults.
//
// The reading itself does not depend on mode: both modes build the same
// Message, and mode only decides which findings are errors. problems holds
// every syntax finding, ordered by line (validation rules V1–V8 are
// Validate's; Validate repeats these findings too, so its list is complete).
//
// err is nil, or an *Error that is one of:
//   - ErrTooLarge, ErrLineTooLong, ErrTooManyRecords, ErrEncoding: the
//     input was not read; m and problems are nil.
//   - ErrSyntax: the message was read, but a finding is an error in this
//     mode (strict mode rejects every construct v1.1 does not define). m is
//     the best-effort reading, problems says everything that is wrong.
//
// b is not retained. ParseLimits never panics.
func ParseLimits(b []byte, mode Mode, lim *Limits) (*Message, []Problem, error) {
	if err := lim.Validate(); err != nil {
		return nil, nil, err
	}
	l := limitsOrDefault(lim)
	if err := checkInput(b, l); err != nil {
		return nil, nil, err
	}
	p := &parser{lim: l, m: &Message{}}
	if err := p.run(string(b)); err != nil {
		return nil, nil, err
	}
	p.m.found = p.found
	ps := p.found.problems(mode)
	sortProblems(ps)
	return p.m, ps, errOf(ps, ErrSyntax)
}

// checkInput enforces the limits that apply before any reading.
func checkInput(b []byte, l Limits) error {
	if len(b) > l.MaxBytes {
		return fatal(ErrTooLarge, CodeLimit, 0,
			fmt.Sprintf("message is %d bytes, over the limit of %d", len(b), l.MaxBytes),
			"split the content and reference it with ref: pointers (§0.2)")
	}
	if utf8.Valid(b) {
		return nil
	}
	off := 0
	for off < len(b) {
		r, n := utf8.DecodeRune(b[off:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		off += n
	}
	line := 1 + strings.Count(string(b[:off]), "\n")
	return fatal(ErrEncoding, CodeEncoding, line,
		fmt.Sprintf("invalid UTF-8 at byte %d", off), "encode the message as UTF-8 (§1)")
}

// parser holds the state of one Parse call.
type parser struct {
	lim     Limits
	m       *Message
	found   findings
	block   *block // open columnar block, nil when none
	err     error  // first fatal error (a limit), sticky
	nrecord int
}

func (p *parser) run(s string) error {
	s = p.normalizeEOL(p.stripBOM(s))
	if err := p.checkLines(s); err != nil {
		return err
	}
	pos, line := p.headers(s)
	pos, line = p.separator(s, pos, line)
	p.body(s, pos, line)
	p.checkHeaders()
	return p.err
}

// stripBOM drops a leading byte order mark. Editors on some platforms
// write one; read as text it would hide the first header (the message
// would seem to have none), so it is removed and reported instead: an
// error in strict mode, a warning in loose mode. The BOM is not content,
// so it is not part of the canonical form or the hash.
func (p *parser) stripBOM(s string) string {
	rest, ok := strings.CutPrefix(s, "\ufeff")
	if ok {
		p.found.add(soft, 1, CodeEncoding, "byte order mark (U+FEFF) at the start of the message",
			"save the message as UTF-8 without a BOM (§1)")
	}
	return rest
}

// normalizeEOL strips the CRs of CR LF line endings. §8.5 wants LF, but
// CR LF is what many transports produce; loose mode accepts it with a
// warning. Every CR run before an LF goes, so canonical text never holds
// a CR LF that a second reading would strip again.
func (p *parser) normalizeEOL(s string) string {
	i := strings.Index(s, "\r\n")
	if i < 0 {
		return s
	}
	p.found.add(soft, 1+strings.Count(s[:i], "\n"), CodeEOL,
		"CR LF line endings", "use LF line endings (§8.5)")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		j := i
		for j < len(s) && s[j] == '\r' {
			j++
		}
		if j > i && j < len(s) && s[j] == '\n' {
			i = j
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// checkLines enforces MaxLineBytes on every physical line.
func (p *parser) checkLines(s string) error {
	line := 1
	for len(s) > 0 {
		n := strings.IndexByte(s, '\n')
		if n < 0 {
			n = len(s)
		}
		if n > p.lim.MaxLineBytes {
			return p.lineTooLong(line, n)
		}
		s = s[min(n+1, len(s)):]
		line++
	}
	return nil
}

func (p *parser) lineTooLong(line, n int) error {
	return fatal(ErrLineTooLong, CodeLimit, line,
		fmt.Sprintf("line is %d bytes, over the limit of %d", n, p.lim.MaxLineBytes),
		"move long content behind a ref: pointer (§0.2)")
}

// lineEnd returns the index of the LF ending the physical line at pos, or
// len(s).
func lineEnd(s string, pos int) int {
	if i := strings.IndexByte(s[pos:], '\n'); i >= 0 {
		return pos + i
	}
	return len(s)
}

// headers reads the leading `@` lines and returns where the rest starts.
func (p *parser) headers(s string) (pos, line int) {
	line = 1
	for pos < len(s) && s[pos] == '@' {
		end := lineEnd(s, pos)
		p.header(s[pos:end], line)
		pos, line = end+1, line+1
	}
	return pos, line
}

// header records one header line; checkHeaders judges them all later.
func (p *parser) header(text string, line int) {
	text = strings.Trim(text[1:], " \t\r")
	name, value := text, ""
	if i := strings.IndexAny(text, " \t"); i >= 0 {
		name, value = text[:i], strings.Trim(text[i:], " \t")
	}
	p.m.Headers = append(p.m.Headers, Header{Name: name, Value: value, Line: line})
}

// separator skips the empty line(s) after the header block (§8.2).
func (p *parser) separator(s string, pos, line int) (int, int) {
	first, blanks := line, 0
	for pos < len(s) && isBlankLine(s[pos:lineEnd(s, pos)]) {
		pos, line, blanks = lineEnd(s, pos)+1, line+1, blanks+1
	}
	switch {
	case pos >= len(s):
		if blanks > 1 {
			p.found.add(info, first+1, CodeBlank, "empty lines at the end of the message", "end the message after its last line")
		}
	case blanks == 0 && len(p.m.Headers) > 0:
		p.found.add(soft, line, CodeBlank, "no empty line between the header block and the body",
			"insert one empty line before the first record (§8.2)")
	case blanks > 1:
		p.found.add(soft, first+1, CodeBlank, fmt.Sprintf("%d empty lines between the header block and the body", blanks),
			"keep exactly one empty line (§8.2)")
	}
	return pos, line
}

func isBlankLine(s string) bool { return strings.Trim(s, " \t\r") == "" }

// body reads the records, one logical line each.
func (p *parser) body(s string, pos, line int) {
	var blank []int // the current run of empty lines
	for pos < len(s) && p.err == nil {
		end, open := logicalEnd(s, pos)
		if end-pos > p.lim.MaxLineBytes {
			p.err = p.lineTooLong(line, end-pos)
			return
		}
		if text := trimLine(s[pos:end]); text == "" {
			blank = append(blank, line)
			p.endBlock()
		} else {
			p.blankLines(blank, soft)
			blank = blank[:0]
			p.record(text, line, open)
		}
		line += 1 + strings.Count(s[pos:end], "\n")
		pos = end + 1
	}
	p.endBlock()
	p.blankLines(blank, info)
}

// blankLines reports a run of empty lines inside the body (soft) or after
// it (info), once per run so that a flood of them costs one finding.
func (p *parser) blankLines(lines []int, cls class) {
	if len(lines) == 0 {
		return
	}
	n := fmt.Sprintf("%d empty lines", len(lines))
	if len(lines) == 1 {
		n = "empty line"
	}
	if cls == info {
		p.found.add(info, lines[0], CodeBlank, n+" at the end of the message", "end the message after its last record")
		return
	}
	p.found.add(soft, lines[0], CodeBlank, n+" inside the body", "remove them: one record per line (§3)")
}

// trimLine drops blanks around a logical line.
func trimLine(s string) string { return strings.Trim(s, blanks) }

// record dispatches one non-empty logical line.
func (p *parser) record(text string, line int, open bool) {
	if p.block != nil {
		if text[0] != '#' && text != "---" {
			p.block.row(p, text, line, open)
			return
		}
		p.endBlock()
	}
	switch {
	case open:
		p.opaque(text, line, "unterminated quoted string")
	case text[0] == '#':
		p.hashLine(text, line)
	case text[0] == '@':
		p.opaque(text, line, "header line inside the body")
	default:
		p.intentLine(text, line)
	}
}

// add appends a record, enforcing MaxRecords.
func (p *parser) add(r Record) {
	p.nrecord++
	if p.nrecord > p.lim.MaxRecords && p.err == nil {
		p.err = fatal(ErrTooManyRecords, CodeLimit, r.Line,
			fmt.Sprintf("more than %d records", p.lim.MaxRecords),
			"split the message (§14.1 recommends at most 1000 records)")
		return
	}
	p.m.Records = append(p.m.Records, r)
}

// opaque keeps a line that is not a record verbatim. §12.3 says to skip
// malformed records; keeping them (as TypeOpaque) loses nothing, and the
// finding still rejects the message in strict mode.
func (p *parser) opaque(text string, line int, why string) {
	p.found.add(soft, line, CodeRecord, "cannot read record: "+why,
		"write `#type key=value … [@rid=…]` or `intent{k=v,…} [@rid=…]` (§3)")
	p.add(Record{Type: TypeOpaque, Line: line, Raw: text})
}
