package pairl

import "strings"

// Reference syntax (§5.2, §9, V3).
//
// V3 says refs match `ref:<ns>:<type>:<id>` "at minimum", yet the same
// spec mandates `ref:msg:<id>` for @mid and recommends `ref:url:<url>`,
// both with a single part after the namespace. A ref is therefore accepted
// with at least one non-empty part after the namespace (the reading the
// upstream clarification of v1.1 made explicit), with an optional
// `#<rid>` record fragment (§9.2), and no whitespace or control bytes.

// refProblem returns why v is not a valid ref, or "".
func refProblem(v string) string {
	rest, ok := strings.CutPrefix(v, "ref:")
	if !ok {
		return "does not start with ref:"
	}
	if i := strings.IndexFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '"' }); i >= 0 {
		return "contains whitespace, a control character or a quote"
	}
	ns, id, ok := strings.Cut(rest, ":")
	if !ok || !isNamespace(ns) {
		return "is not ref:<ns>:<id> (namespace and id required)"
	}
	if i := strings.LastIndexByte(id, '#'); i >= 0 {
		if !isFragment(id[i+1:]) {
			return "has an empty or malformed #<rid> fragment"
		}
		id = id[:i]
	}
	for _, part := range strings.Split(id, ":") {
		if part == "" {
			return "has an empty part (ref:<ns>:<type>:<id>)"
		}
	}
	return ""
}

// isNamespace reports whether s is [a-z0-9_-]+.
func isNamespace(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLower(s[i]) && !isDigit(s[i]) && s[i] != '_' && s[i] != '-' {
			return false
		}
	}
	return true
}

// isFragment reports whether s is a record fragment: [A-Za-z0-9_-]+.
func isFragment(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != '_' && s[i] != '-' {
			return false
		}
	}
	return true
}

// isMsgRef reports whether v is a message reference `ref:msg:<id>` without
// a record fragment, as @mid, @root, @parent and @deps require (§2).
func isMsgRef(v string) bool {
	return strings.HasPrefix(v, "ref:msg:") && refProblem(v) == "" && !strings.Contains(v, "#")
}
