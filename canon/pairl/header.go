package pairl

import (
	"fmt"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

// headerRank is the §8.1 canonical order. Later-version headers (v1.4+
// @id, @sid, @p) sit where v1.6 puts them relative to their neighbours, so
// loose-mode hashes of such messages match the v1.6 reference
// implementations; @root stays before @parent as v1.1 says. Unknown
// headers go after @limit, sorted by name, and @hash is always last.
var headerRank = map[string]int{"v": 0, "id": 1, "mid": 2, "sid": 3, "ts": 4,
	"root": 5, "p": 6, "parent": 7, "deps": 8, "budget": 9, "limit": 10, "hash": 12}

const unknownRank = 11

func rankOf(name string) int {
	if r, ok := headerRank[name]; ok {
		return r
	}
	return unknownRank
}

// laterHeaders are headers of PAIRL v1.4+ that loose mode reads.
var laterHeaders = map[string]string{
	"id":  "@id (PAIRL v1.4 short message id)",
	"sid": "@sid (PAIRL v1.4 session id)",
	"p":   "@p (PAIRL v1.4 short parent)",
}

// checkHeaders judges the header block as a whole: names, repeats,
// required headers and the values v1.1 defines (§2).
func (p *parser) checkHeaders() {
	seen := map[string]int{}
	for _, h := range p.m.Headers {
		if first, dup := seen[h.Name]; dup {
			p.found.add(classOfRepeat(h.Name), h.Line, CodeHeader,
				fmt.Sprintf("@%s repeated (first at line %d)", h.Name, first), "keep one @"+h.Name+" line")
			continue
		}
		seen[h.Name] = h.Line
		p.checkHeader(h)
	}
	p.checkRequired(seen)
}

// classOfRepeat: a repeated v1.1 header is ambiguous (which @mid?), so it
// is an error in both modes; repeats of headers v1.1 does not know are
// only as wrong as the headers themselves.
func classOfRepeat(name string) class {
	if rankOf(name) == unknownRank || laterHeaders[name] != "" {
		return soft
	}
	return hard
}

func (p *parser) checkRequired(seen map[string]int) {
	for _, name := range []string{"v", "mid", "ts"} {
		if _, ok := seen[name]; ok {
			continue
		}
		if _, ok := seen["id"]; name == "mid" && ok {
			// Loose mode reads v1.4+ messages, which name themselves with
			// @id; they have no v1.1 identity, hence no natural key.
			p.found.add(soft, 1, CodeHeader, "missing @mid (the message has the later-version @id instead)",
				"add `@mid ref:msg:<id>` (§2.1)")
			continue
		}
		p.found.add(hard, 1, CodeHeader, "missing required header @"+name, requiredFix[name])
	}
}

var requiredFix = map[string]string{
	"v":   "add `@v 1` as the first line (§2.1)",
	"mid": "add `@mid ref:msg:<ULID>` (§2.1, §2.4)",
	"ts":  "add `@ts <ISO 8601 timestamp with offset>`, e.g. 2026-01-31T16:20:01.123+01:00 (§2.5)",
}

// checkHeader judges one header's name and value.
func (p *parser) checkHeader(h Header) {
	if !isIdent(h.Name) {
		p.found.add(hard, h.Line, CodeHeader, fmt.Sprintf("malformed header line @%s", h.Name),
			"write `@name value` with a lowercase name (§2)")
		return
	}
	if h.Value == "" {
		p.found.add(hard, h.Line, CodeHeader, "@"+h.Name+" has no value", "write `@"+h.Name+" <value>`")
		return
	}
	if check, ok := headerChecks[h.Name]; ok {
		if desc, fix := check(h.Value); desc != "" {
			p.found.add(hard, h.Line, CodeHeader, desc, fix)
		}
		return
	}
	p.otherHeader(h)
}

// otherHeader reports headers v1.1 does not define.
func (p *parser) otherHeader(h Header) {
	switch {
	case h.Name == "deps":
		if strings.ContainsAny(h.Value, " \t") {
			p.found.add(soft, h.Line, CodeHeader, "spaces in @deps", "separate the refs with commas only (§2.2)")
		}
	case laterHeaders[h.Name] != "":
		p.found.add(soft, h.Line, CodeLater, "later-version header "+laterHeaders[h.Name]+", not PAIRL v1.1",
			"use the v1.1 headers @mid/@parent")
	case rankOf(h.Name) == unknownRank:
		p.found.add(soft, h.Line, CodeHeader, "unknown header @"+h.Name,
			"remove it or carry the data in a #fact record (§2)")
	}
}

// headerChecks validate the values of the headers whose form v1.1 fixes.
// Each returns a description and a fix, or "" when the value is fine.
// @root, @parent and @hash are references, checked by V3 and V5.
var headerChecks = map[string]func(string) (string, string){
	"v":      checkVersion,
	"mid":    checkMID,
	"ts":     checkTS,
	"budget": checkBudget,
	"limit":  checkLimit,
}

func checkVersion(v string) (string, string) {
	if !allDigits(v) {
		return fmt.Sprintf("@v %q is not an integer", v), "write `@v 1` (§2.1)"
	}
	if strings.TrimLeft(v, "0") != "1" {
		return fmt.Sprintf("unsupported protocol version @v %s", v), "PAIRL v1.1 messages carry `@v 1` (§13.1)"
	}
	return "", ""
}

func checkMID(v string) (string, string) {
	if !isMsgRef(v) {
		return fmt.Sprintf("@mid %q is not ref:msg:<id>", v), "write `@mid ref:msg:<ULID>` (§2.1)"
	}
	return "", ""
}

func checkTS(v string) (string, string) {
	if _, ok := canon.ParseInstant(v); !ok {
		return fmt.Sprintf("@ts %q is not an ISO 8601 timestamp with a timezone offset", v),
			"write e.g. 2026-01-31T16:20:01.123+01:00 (§2.5)"
	}
	return "", ""
}

func checkBudget(v string) (string, string) {
	if _, ok := parseAmount(v, false); !ok {
		return fmt.Sprintf("@budget %q is not <float><unit>", v), "write e.g. `@budget 0.10USD` (§2.3)"
	}
	return "", ""
}

func checkLimit(v string) (string, string) {
	if _, ok := parseAmount(v, true); !ok {
		return fmt.Sprintf("@limit %q is not <int><unit>", v), "write e.g. `@limit 5000t` (§2.3)"
	}
	return "", ""
}

// isIdent reports whether s is [a-z][a-z0-9_]*.
func isIdent(s string) bool {
	if s == "" || !isLower(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLower(s[i]) && !isDigit(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}
