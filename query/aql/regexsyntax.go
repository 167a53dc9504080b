package aql

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
)

// ecmaSyntaxError is a pattern ECMA-262 refuses, or reads otherwise than
// another engine would, with what to write instead.
type ecmaSyntaxError struct{ msg string }

func (e *ecmaSyntaxError) Error() string { return e.msg }

func syntaxErrorf(format string, args ...any) error {
	return &ecmaSyntaxError{fmt.Sprintf(format, args...)}
}

// ecmaSource checks pattern for syntax ECMA-262 rejects and returns the
// source regexp2 reads the way a JavaScript engine reads pattern. The
// pattern is first split into UTF-16 code units, as JavaScript sees it;
// every character the scanner writes is then either copied, when regexp2
// reads it the same way, or written as a \u escape (a surrogate as its
// stand-in rune, see unitRune).
func ecmaSource(pattern string) (string, error) {
	units := utf16.Encode([]rune(pattern))
	sc := &ecmaScanner{in: make([]rune, len(units))}
	for i, u := range units {
		sc.in[i] = rune(u)
	}
	sc.groups, sc.named = countGroups(sc.in)
	sc.names = make(map[string]bool)
	if err := sc.scan(); err != nil {
		return "", err
	}
	return sc.out.String(), nil
}

// ecmaScanner rewrites one pattern, a sequence of code units.
type ecmaScanner struct {
	in     []rune
	i      int             // the next unit of in
	groups int             // capturing groups in the whole pattern
	named  bool            // whether any of them has a name
	names  map[string]bool // the group names met so far
	out    strings.Builder
}

func (sc *ecmaScanner) scan() error {
	for sc.i < len(sc.in) {
		r := sc.in[sc.i]
		switch {
		case r == '\\':
			sc.escape()
		case r == '[':
			if err := sc.class(); err != nil {
				return err
			}
		case r == '(' && sc.peek(1) == '?':
			if err := checkGroup(sc.in[sc.i:]); err != nil {
				return err
			}
			if sc.peek(2) != '<' || sc.peek(3) == '=' || sc.peek(3) == '!' {
				sc.out.WriteRune(r)
				sc.i++
				continue
			}
			sc.out.WriteString("(?<")
			sc.i += 3
			if err := sc.groupName(); err != nil {
				return err
			}
		default:
			sc.unit(r)
			sc.i++
		}
	}
	return nil
}

// peek returns the unit k places ahead, or -1 past the end.
func (sc *ecmaScanner) peek(k int) rune {
	if sc.i+k < len(sc.in) {
		return sc.in[sc.i+k]
	}
	return -1
}

// unit writes a literal code unit: a surrogate as its stand-in, anything
// else as itself (outside a class, syntax characters stay syntax).
func (sc *ecmaScanner) unit(r rune) {
	if utf16.IsSurrogate(r) {
		sc.out.WriteRune(surrogateStandIn + r)
		return
	}
	sc.out.WriteRune(r)
}

// literal writes code unit r so that it reads as that character wherever
// it stands.
func (sc *ecmaScanner) literal(r rune) {
	if utf16.IsSurrogate(r) {
		sc.out.WriteRune(surrogateStandIn + r)
		return
	}
	fmt.Fprintf(&sc.out, `\u%04X`, r)
}

// escape rewrites the escape at sc.i outside a class. A decimal escape is
// a backreference only when the pattern has that many groups; otherwise
// JavaScript reads it as a legacy octal escape (\12 is U+000A) or, for 8
// and 9, as the digit itself (Annex B), which regexp2 refuses.
func (sc *ecmaScanner) escape() {
	r := sc.peek(1)
	switch {
	case r < 0: // a trailing backslash: regexp2 refuses it as JavaScript does
		sc.out.WriteRune('\\')
		sc.i++
		return
	case r >= '1' && r <= '9':
		n := 1
		for isDigit(sc.peek(n + 1)) {
			n++
		}
		if decimalAtMost(sc.in[sc.i+1:sc.i+1+n], sc.groups) {
			sc.out.WriteString(string(sc.in[sc.i : sc.i+1+n]))
			sc.i += 1 + n
			return
		}
	}
	if cu, n, ok := sc.charEscape(false); ok {
		sc.literal(cu)
		sc.i += n
		return
	}
	// A class escape, an assertion, a named reference or an escape
	// regexp2 reads as JavaScript does (\x41, \cA, \u not followed by
	// four hex digits...): copied.
	sc.out.WriteString(string(sc.in[sc.i : sc.i+2]))
	sc.i += 2
}

// charEscape decodes the character escape at sc.i (a backslash) when its
// value is a code unit this scanner must write itself: a \u escape, a
// legacy octal or 8/9 identity escape, or an identity escape of a
// surrogate. It returns the unit and the units the escape spans.
func (sc *ecmaScanner) charEscape(inClass bool) (cu rune, n int, ok bool) {
	r := sc.peek(1)
	switch {
	case r == 'u':
		v := 0
		for k := 2; k < 6; k++ {
			d := hexValue(sc.peek(k))
			if d < 0 {
				return 0, 0, false // \u is u itself; regexp2 agrees
			}
			v = v*16 + d
		}
		return rune(v), 6, true
	case r == '8' || r == '9':
		return r, 2, true
	case r >= '0' && r <= '7':
		v, k := 0, 1
		for k <= 3 && sc.peek(k) >= '0' && sc.peek(k) <= '7' && v*8+int(sc.peek(k)-'0') <= 0377 {
			v, k = v*8+int(sc.peek(k)-'0'), k+1
		}
		return rune(v), k, true
	case utf16.IsSurrogate(r):
		return r, 2, true
	case inClass && r == '-':
		return r, 2, true
	}
	return 0, 0, false
}

// class rewrites the character class at sc.i. Ranges whose ends are both
// characters are written out, split around the surrogate block, whose
// units regexp2 reads as stand-ins; a range out of order is refused here,
// where the scanner knows the units JavaScript compares.
func (sc *ecmaScanner) class() error {
	sc.out.WriteRune('[')
	sc.i++
	if sc.peek(0) == '^' {
		sc.out.WriteRune('^')
		sc.i++
	}
	for sc.i < len(sc.in) && sc.in[sc.i] != ']' {
		if err := sc.checkClassK(); err != nil {
			return err
		}
		lo, text := sc.classAtom()
		if sc.peek(0) != '-' || sc.peek(1) == ']' || sc.peek(1) < 0 {
			sc.out.WriteString(text)
			continue
		}
		sc.i++ // the dash
		if err := sc.checkClassK(); err != nil {
			return err
		}
		hi, hiText := sc.classAtom()
		if lo < 0 || hi < 0 { // a class escape at either end: Annex B reads three atoms
			sc.out.WriteString(text + `\-` + hiText)
			continue
		}
		if lo > hi {
			return syntaxErrorf("a range in a character class is out of order: U+%04X-U+%04X, in UTF-16 code units (a character outside the BMP is two); put the smaller end first", lo, hi)
		}
		sc.classRange(lo, hi)
	}
	if sc.i < len(sc.in) {
		sc.out.WriteRune(']')
		sc.i++
	}
	return nil
}

// checkClassK refuses \k in a class of a pattern with named groups,
// where ECMA-262 no longer reads it as the letter k.
func (sc *ecmaScanner) checkClassK() error {
	if sc.named && sc.peek(0) == '\\' && sc.peek(1) == 'k' {
		return syntaxErrorf(`\k in a character class of a pattern with named groups is not ECMA-262; write k for the letter`)
	}
	return nil
}

// classAtom reads one atom of a class: its code unit (-1 for a class
// escape such as \d, which is a set) and the text that writes it.
func (sc *ecmaScanner) classAtom() (rune, string) {
	var b strings.Builder
	r := sc.in[sc.i]
	if r != '\\' {
		sc.i++
		return r, atomText(r)
	}
	if cu, n, ok := sc.charEscape(true); ok {
		sc.i += n
		return cu, atomText(cu)
	}
	next := sc.peek(1)
	if next < 0 {
		sc.i++
		return '\\', `\\`
	}
	b.WriteRune('\\')
	b.WriteRune(next)
	sc.i += 2
	switch next {
	case 'd', 'D', 's', 'S', 'w', 'W':
		return -1, b.String()
	case 'b':
		return '\b', b.String()
	case 'f':
		return '\f', b.String()
	case 'n':
		return '\n', b.String()
	case 'r':
		return '\r', b.String()
	case 't':
		return '\t', b.String()
	case 'v':
		return '\v', b.String()
	case 'x':
		if hexValue(sc.peek(0)) >= 0 && hexValue(sc.peek(1)) >= 0 {
			v := hexValue(sc.peek(0))*16 + hexValue(sc.peek(1))
			sc.i += 2
			return rune(v), atomText(rune(v))
		}
		return 'x', b.String()
	case 'c':
		if l := sc.peek(0); l >= 0 && l < 0x80 && (unicode.IsLetter(l) || unicode.IsDigit(l) || l == '_') {
			sc.i++
			return l % 32, atomText(l % 32)
		}
		sc.i-- // Annex B: the backslash is itself, and c is read next
		return '\\', `\\`
	}
	return next, atomText(next) // an identity escape
}

// atomText writes code unit r inside a class.
func atomText(r rune) string {
	if utf16.IsSurrogate(r) {
		return string(surrogateStandIn + r)
	}
	return fmt.Sprintf(`\u%04X`, r)
}

// classRange writes the range lo-hi of code units, its part in the
// surrogate block as stand-ins.
func (sc *ecmaScanner) classRange(lo, hi rune) {
	for _, part := range [][2]rune{{lo, min(hi, 0xD7FF)}, {max(lo, 0xD800), min(hi, 0xDFFF)}, {max(lo, 0xE000), hi}} {
		if part[0] <= part[1] {
			sc.out.WriteString(atomText(part[0]) + "-" + atomText(part[1]))
		}
	}
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func hexValue(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	}
	return -1
}

// decimalAtMost reports whether the decimal digits ds denote at most max.
func decimalAtMost(ds []rune, max int) bool {
	v := 0
	for _, d := range ds {
		v = v*10 + int(d-'0')
		if v > max {
			return false
		}
	}
	return true
}

// countGroups counts the capturing groups of a pattern (an opening
// parenthesis outside a class, not escaped, and not a (?…) group other
// than a named one) and reports whether any of them is named.
func countGroups(rs []rune) (n int, named bool) {
	inClass := false
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\\':
			i++
		case r == '[':
			inClass = true
		case r == ']':
			inClass = false
		case r == '(' && !inClass:
			if i+1 >= len(rs) || rs[i+1] != '?' {
				n++
			} else if i+3 < len(rs) && rs[i+2] == '<' && rs[i+3] != '=' && rs[i+3] != '!' {
				n, named = n+1, true
			}
		}
	}
	return n, named
}

// checkGroup checks a group opened by "(?" at rs[0]: ECMA-262 has
// (?:…), (?=…), (?!…), (?<=…), (?<!…) and (?<name>…), and nothing else.
func checkGroup(rs []rune) error {
	head := string(rs[:min(len(rs), 3)])
	switch {
	case head == "(?:", head == "(?=", head == "(?!":
		return nil
	case strings.HasPrefix(string(rs[:min(len(rs), 4)]), "(?<=") || strings.HasPrefix(string(rs[:min(len(rs), 4)]), "(?<!"):
		return nil
	case head == "(?<":
		return nil // a named group: ecmaScanner.groupName checks the name
	case head == "(?#":
		return syntaxErrorf("(?#…) is a comment group of .NET and PCRE, not ECMA-262; remove the comment")
	case head == "(?>":
		return syntaxErrorf("(?>…) is an atomic group of .NET and PCRE, not ECMA-262; write (?:…), or (?=(…))\\1 for an atomic match")
	case head == "(?'", head == "(?P":
		return syntaxErrorf("%s…) is a named group of .NET or Python, not ECMA-262; write (?<name>…)", head)
	case head == "(?(":
		return syntaxErrorf("(?(…)…) is a conditional of .NET and PCRE, not ECMA-262; write the alternatives with | and lookarounds")
	case len(rs) > 2 && isInlineOption(rs[2]):
		end := 2
		for end < len(rs) && isInlineOption(rs[end]) {
			end++
		}
		return syntaxErrorf("%s is an inline option of .NET and PCRE, not ECMA-262, which has no flags inside a pattern (matches takes none); %s",
			string(rs[:min(len(rs), end+1)]), optionFix(rs[2:end]))
	}
	return syntaxErrorf("%s is not an ECMA-262 group; ECMA-262 has (…), (?:…), (?=…), (?!…), (?<=…), (?<!…) and (?<name>…)", string(rs[:min(len(rs), 3)]))
}

// optionFix says how to write without the inline options opts.
func optionFix(opts []rune) string {
	var fixes []string
	for _, o := range opts {
		switch o {
		case 'i':
			fixes = append(fixes, "spell the cases out, [Ss]oil for (?i)soil")
		case 's':
			fixes = append(fixes, `write [\s\S] for a dot that also matches line breaks`)
		case 'm':
			fixes = append(fixes, `write (?<=^|\n) and (?=\n|$) for anchors at line breaks`)
		case 'n':
			fixes = append(fixes, "write (?:…) for a group that does not capture")
		case 'x':
			fixes = append(fixes, "remove the spaces and comments")
		}
	}
	if len(fixes) == 0 {
		return "remove the option"
	}
	return strings.Join(fixes, "; ")
}

// isInlineOption reports whether r may appear in an inline option group
// of .NET, PCRE or Python: (?i), (?-m), (?^x:…), (?imsx)…
func isInlineOption(r rune) bool {
	return strings.ContainsRune("imnsxuUJaL-^", r)
}

// groupName copies the name of the (?<name>…) group whose name starts
// at sc.i, up to its ">": an identifier (which rules out .NET's balancing
// groups, (?<a-b>…)), used once in the pattern (a later ECMA-262 allows
// a name again in another alternative, but JavaScript engines in use
// refuse it). Surrogate pairs are joined back into the characters they
// encode, as JavaScript reads a name.
func (sc *ecmaScanner) groupName() error {
	end := sc.i
	for end < len(sc.in) && sc.in[end] != '>' {
		end++
	}
	units := make([]uint16, end-sc.i)
	for k, r := range sc.in[sc.i:end] {
		units[k] = uint16(r)
	}
	name := []rune(string(utf16.Decode(units)))
	for k, r := range name {
		if r == '-' {
			return syntaxErrorf("(?<%s is a .NET balancing group, not ECMA-262; a group name is an identifier, as in (?<name>…)", string(name[:k+1]))
		}
		if !isNameRune(r, k == 0) {
			return syntaxErrorf("%q cannot stand in a group name, which is an identifier closed by >, as in (?<name>…)", r)
		}
	}
	if end == len(sc.in) || len(name) == 0 {
		return syntaxErrorf("a group name must be an identifier closed by >, as in (?<name>…)")
	}
	if sc.names[string(name)] {
		return syntaxErrorf("the group name %s is used twice; give each group its own name", string(name))
	}
	sc.names[string(name)] = true
	sc.out.WriteString(string(name) + ">")
	sc.i = end + 1
	return nil
}

// isNameRune reports whether r may appear in a group name (an escape's
// backslash included; regexp2 checks what follows it).
func isNameRune(r rune, first bool) bool {
	if r == '$' || r == '_' || r == '\\' || unicode.IsLetter(r) {
		return true
	}
	return !first && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || r == '\u200C' || r == '\u200D')
}
