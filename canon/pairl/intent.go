package pairl

import (
	"fmt"
	"sort"
	"strings"
)

// paramOrder is the canonical order of the standard intent keys (§4.1,
// §8.3). Unknown keys follow, sorted lexicographically.
var paramOrder = map[string]int{"t": 0, "s": 1, "l": 2, "m": 3, "a": 4, "u": 5, "fmt": 6}

// paramValues are the values §4.1 allows for the enumerated keys.
var paramValues = map[string][]string{
	"s":   {"f", "c", "t", "p", "e"},
	"l":   {"0", "1", "2", "3"},
	"m":   {"+", "-", "!", "0"},
	"a":   {"i", "c", "p"},
	"u":   {"lo", "md", "hi"},
	"fmt": {"par", "bul", "num"},
}

// isStandardValue reports whether key=value is one of the §4.1
// enumerations. V1 exempts these: `l=2` and `m=0` are style codes the spec
// defines, not facts, and flagging them would reject every example.
func isStandardValue(f Field) bool {
	return !f.Value.Quoted && contains(paramValues[f.Key], f.Value.Text)
}

// sortedParams returns the parameters in canonical order, stable for
// repeated keys (which are themselves an error).
func sortedParams(fs []Field) []Field {
	out := append([]Field(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool { return paramLess(out[i].Key, out[j].Key) })
	return out
}

func paramLess(a, b string) bool {
	ra, oka := paramOrder[a]
	rb, okb := paramOrder[b]
	switch {
	case oka && okb:
		return ra < rb
	case oka || okb:
		return oka
	}
	return a < b
}

// checkIntent applies §4: the name, and the form and value of each
// parameter.
func (p *parser) checkIntent(r *Record) {
	if !isCoreIntent(r.Name) && !isCustomIntent(r.Name) {
		p.found.add(soft, r.Line, CodeIntent, fmt.Sprintf("intent name %q is neither [a-z0-9]{2,4} nor a dotted custom name", r.Name),
			"use a registry intent such as req, ack, sum (§4.2) or namespace it: org.acme.custom (§4.3)")
	}
	for _, f := range r.Fields {
		p.checkParam(r.Line, f)
	}
}

// checkParam applies §4.1 to one parameter.
func (p *parser) checkParam(line int, f Field) {
	switch {
	case f.Key == "":
		p.found.add(soft, line, CodeIntent, fmt.Sprintf("intent parameter %q has no key", f.Value.Text), "write k=v (§4.1)")
	case !isIdent(f.Key):
		p.found.add(soft, line, CodeIntent, fmt.Sprintf("intent parameter key %q is not lowercase [a-z][a-z0-9_]*", f.Key), "use a short lowercase key (§4.1)")
	case f.Value.Text == "" && !f.Value.Quoted:
		p.found.add(soft, line, CodeIntent, "empty value for intent parameter "+f.Key, "remove the parameter or give it a value")
	case !f.Value.Quoted && strings.ContainsAny(f.Value.Text, blanks):
		p.found.add(soft, line, CodeIntent, fmt.Sprintf("space inside the unquoted value of %s", f.Key), `quote it: `+f.Key+`="…" (§7.2)`)
	case paramValues[f.Key] != nil && !isStandardValue(f):
		p.found.add(soft, line, CodeIntent, fmt.Sprintf("%s=%s is not one of %s", f.Key, f.Value.Text, strings.Join(paramValues[f.Key], "|")),
			"use a §4.1 value")
	}
}

// isCoreIntent reports whether s is [a-z0-9]{2,4} (§4).
func isCoreIntent(s string) bool {
	if len(s) < 2 || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLower(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// isCustomIntent reports whether s is a dotted custom intent such as
// org.acme.custom (§4.3): two or more [a-z][a-z0-9_-]* parts.
func isCustomIntent(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return false
	}
	for _, part := range parts {
		if part == "" || !isLower(part[0]) || strings.Trim(part, "abcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
			return false
		}
	}
	return true
}

// intentRegistry is the v1.1 registry (§4.2), used by Render. `cmp` is
// listed twice in §4.2 (complete/done and comparison); the first meaning
// is kept.
var intentRegistry = map[string]string{
	"ack": "acknowledge", "req": "request", "qst": "question", "pln": "plan",
	"nxt": "next action", "sum": "summary", "upd": "status update", "cmp": "complete",
	"hld": "on hold", "blk": "blocked", "ctx": "context", "fnd": "findings",
	"evl": "evaluation", "lst": "list", "def": "definition", "jbl": "proclamation",
	"wrn": "warning", "cal": "calm", "cnt": "contrast", "emf": "emphasis",
	"agr": "agreement", "dis": "disagreement", "alt": "alternative", "rpt": "report",
	"off": "official statement", "inc": "incident", "fog": "information unclear",
	"apx": "apology", "thx": "thanks", "grt": "greeting", "cls": "closing",
	"bid": "bid", "ref": "refusal",
}
