package aql

import (
	"fmt"
	"unicode/utf16"

	"github.com/dlclark/regexp2/v2"
)

// CompileRegex compiles pattern as new RegExp(pattern) does in
// JavaScript, without flags: ECMA-262 syntax with its Annex B leniencies,
// and a pattern that is a sequence of UTF-16 code units, so an emoji
// written in it is two units, as in the strings it is matched against
// (see MatchString). Syntax that other engines accept but ECMA-262
// rejects, such as (?i), (?>…) or (?#…), is an error saying what to
// write instead. The caller sets MatchTimeout.
//
// regexp2's ECMAScript mode carries out the matching; what it reads
// differently from a JavaScript engine is refused or rewritten here
// first: .NET and PCRE group syntax, characters outside the BMP (regexp2
// reads runes, so each is split into its code units), and legacy octal
// and identity escapes such as \12 or \8 where the pattern has fewer
// groups (regexp2 refuses them; JavaScript without the u flag reads them
// as characters).
func CompileRegex(pattern string) (re *regexp2.Regexp, err error) {
	src, err := ecmaSource(pattern)
	if err != nil {
		return nil, err
	}
	// The pattern comes from an untrusted issuer, so a panic in the
	// compiler is turned into an error rather than taking the server down.
	defer func() {
		if r := recover(); r != nil {
			re, err = nil, fmt.Errorf("the regex compiler failed: %v", r)
		}
	}()
	return regexp2.Compile(src, regexp2.ECMAScript)
}

// MatchString reports whether re, compiled by CompileRegex, finds a
// match in s, as RegExp.prototype.test does: s is read as UTF-16 code
// units, so "." matches half of an emoji and "^.$" does not match a whole
// one. The error is regexp2's: a timeout or its backtracking limit.
func MatchString(re *regexp2.Regexp, s string) (bool, error) {
	for _, r := range s {
		if r > 0xFFFF {
			return MatchUnits(re, utf16.Encode([]rune(s)))
		}
	}
	return re.MatchString(s) // no surrogates: every rune is its own code unit
}

// MatchUnits is MatchString over UTF-16 code units, which may hold lone
// surrogates that a Go string cannot.
func MatchUnits(re *regexp2.Regexp, units []uint16) (bool, error) {
	rs := make([]rune, len(units))
	for i, u := range units {
		rs[i] = unitRune(u)
	}
	return re.MatchRunes(rs)
}

// unitRune is the rune regexp2 reads for a UTF-16 code unit. A surrogate
// becomes a stand-in in plane 16 (U+10D800-U+10DFFF), which no input
// holds once astral characters are split into their code units: regexp2
// carries some of a pattern's characters through UTF-8 while it
// optimizes, which turns a surrogate into U+FFFD, so [\uD83D\uDE00]
// would match nothing.
func unitRune(u uint16) rune {
	if utf16.IsSurrogate(rune(u)) {
		return surrogateStandIn + rune(u)
	}
	return rune(u)
}

const surrogateStandIn = 0x100000
