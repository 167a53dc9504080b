package pairl

import (
	"errors"
	"fmt"
	"strings"
)

// hashLine reads a `#tag …` line: a lossless or economic record, a
// later-version record, or the header of a columnar block.
func (p *parser) hashLine(text string, line int) {
	j := 1
	for j < len(text) && (isLower(text[j]) || isDigit(text[j]) || text[j] == '_') {
		j++
	}
	tag, rest := text[1:j], text[j:]
	switch {
	case tag == "" || !isLower(tag[0]):
		p.opaque(text, line, "a record tag is # followed by a lowercase name")
	case rest != "" && rest[0] == '[':
		p.startBlock(text, line, tag, rest)
	case rest != "" && !isBlank(rest[0]):
		p.opaque(text, line, fmt.Sprintf("unexpected %q after #%s", rest[0], tag))
	default:
		p.hashRecord(text, line, tag, rest)
	}
}

// hashRecord reads the fields and trailing tags of a `#tag` record.
func (p *parser) hashRecord(text string, line int, tag, rest string) {
	toks, err := tokenize(rest, true)
	if err != nil {
		p.opaque(text, line, err.Error())
		return
	}
	toks, tags, rid, hasRID := peelTags(toks)
	r := Record{Type: typeOfTag(tag), Line: line, Name: tag, Fields: fieldsOf(toks), Tags: tags}
	p.finishRecord(&r, rid, hasRID)
}

// finishRecord checks the tags and fields of a record and adds it.
func (p *parser) finishRecord(r *Record, rid string, hasRID bool) {
	p.setRID(r, rid, hasRID)
	p.checkTags(r)
	p.checkFields(r)
	p.add(*r)
}

// setRID stores the RID in its canonical lowercase form (§3.2) and checks
// its length and alphabet.
func (p *parser) setRID(r *Record, rid string, has bool) {
	if !has {
		return
	}
	r.RID = asciiLower(rid)
	if len(rid) > 8 || !isAlnumString(rid) {
		p.found.add(soft, r.Line, CodeRID, fmt.Sprintf("@rid=%s is not 1–8 ASCII letters and digits", rid),
			"use a short base36 id such as a1, f2 (§3.2)")
	}
}

func isAlnumString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return s != ""
}

// checkTags reports trailing tags other than one @rid.
func (p *parser) checkTags(r *Record) {
	for _, t := range r.Tags {
		switch t.Key {
		case "rid":
			p.found.add(hard, r.Line, CodeRecord, "more than one @rid on a record",
				"keep a single @rid at the end (§3.1)")
		case "m":
			p.found.add(soft, r.Line, CodeLater, "@m turn binding is PAIRL v1.3, not v1.1",
				"remove @m=…")
		default:
			p.found.add(soft, r.Line, CodeRecord, "unknown tag @"+t.Key,
				"records end with an optional @rid=<rid> only (§3.1)")
		}
	}
}

// checkFields applies the per-type field rules of §5 and §6.
func (p *parser) checkFields(r *Record) {
	p.checkDuplicateKeys(r)
	switch r.Type {
	case TypeFact, TypeRef, TypeRule:
		p.checkSinglePair(r)
	case TypeEvid:
		p.checkKnownKeys(r, "claim", "src", "conf")
	case TypeCost:
		p.checkCost(r)
	case TypeQuota:
		p.checkQuota(r)
	case TypeOther:
		p.checkOther(r)
	}
}

// checkDuplicateKeys: a key given twice has no single meaning, and JSON
// views could only keep one of them.
func (p *parser) checkDuplicateKeys(r *Record) {
	seen := map[string]bool{}
	for _, f := range r.Fields {
		if f.Key != "" && seen[f.Key] {
			p.found.add(hard, r.Line, codeForType(r), fmt.Sprintf("key %q given twice", f.Key), "keep one "+f.Key+"=…")
		}
		seen[f.Key] = true
	}
}

func codeForType(r *Record) string {
	if r.Type == TypeIntent {
		return CodeIntent
	}
	return CodeRecord
}

// checkSinglePair: #fact, #ref and #rule hold exactly one key=value, the
// key matching [a-z][a-z0-9_]{0,31} (§5.1; §5.2 and §5.4 use the same
// form for their key and rule name).
func (p *parser) checkSinglePair(r *Record) {
	if len(r.Fields) != 1 || r.Fields[0].Key == "" {
		p.found.add(soft, r.Line, CodeRecord, fmt.Sprintf("#%s holds exactly one key=value, found %d fields", r.Name, len(r.Fields)),
			"write `#"+r.Name+" key=value`, one record per pair")
		return
	}
	f := r.Fields[0]
	if !isIdent(f.Key) || len(f.Key) > 32 {
		p.found.add(soft, r.Line, CodeRecord, fmt.Sprintf("#%s key %q does not match [a-z][a-z0-9_]{0,31}", r.Name, f.Key),
			"use a lowercase snake_case key of at most 32 characters (§5.1)")
	}
	if f.Value.Text == "" && !f.Value.Quoted {
		p.found.add(soft, r.Line, CodeRecord, "empty value for "+f.Key, `write a value, or "" for an empty string (§7)`)
	}
}

// checkKnownKeys reports bare tokens and keys outside known.
func (p *parser) checkKnownKeys(r *Record, known ...string) {
	for _, f := range r.Fields {
		if f.Key == "" {
			p.found.add(soft, r.Line, CodeRecord, fmt.Sprintf("bare value %q in #%s", f.Value.Text, r.Name),
				"write key=value")
			continue
		}
		if !contains(known, f.Key) {
			p.found.add(soft, r.Line, CodeRecord, fmt.Sprintf("unknown key %q in #%s", f.Key, r.Name),
				"#"+r.Name+" takes "+strings.Join(known, ", "))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkCost applies §6.1: val (decimal) and cur (unit) required, model and
// note optional, note quoted.
func (p *parser) checkCost(r *Record) {
	p.checkKnownKeys(r, "val", "cur", "model", "note")
	p.requireNumber(r, "val")
	if v, ok := r.Get("cur"); !ok || !isUnit(v.Text) {
		p.found.add(soft, r.Line, CodeRecord, "#cost needs cur=<unit> (a currency code or custom unit)",
			"add e.g. cur=USD (§6.1)")
	}
	if v, ok := r.Get("note"); ok && !v.Quoted {
		p.found.add(soft, r.Line, CodeRecord, "#cost note is not a quoted string", `write note="…" (§6.1)`)
	}
}

// requireNumber reports a missing or non-decimal required key.
func (p *parser) requireNumber(r *Record, key string) {
	v, ok := r.Get(key)
	switch {
	case !ok:
		p.found.add(soft, r.Line, CodeRecord, fmt.Sprintf("#%s needs %s=<number>", r.Name, key), "add "+key+"=… (§6)")
	case !isDecimal(v.Text) || v.Quoted:
		p.found.add(soft, r.Line, CodeRecord, fmt.Sprintf("#%s %s=%q is not a decimal number", r.Name, key, v.Text),
			"write digits with an optional fraction, e.g. 0.02")
	}
}

// checkQuota applies §6.2. `used` is listed as required, yet the spec's
// own bid examples (V8 scenario 2, Appendix C.1) omit it before execution,
// so its absence is only a warning.
func (p *parser) checkQuota(r *Record) {
	p.checkKnownKeys(r, "type", "total", "used", "rem")
	if v, ok := r.Get("type"); !ok || v.Text == "" {
		p.found.add(soft, r.Line, CodeRecord, "#quota needs type=<unit>", "add e.g. type=tokens (§6.2)")
	}
	p.requireNumber(r, "total")
	if _, ok := r.Get("used"); !ok {
		p.found.add(info, r.Line, CodeQuota, "#quota has no used=", "add used=<number> once execution started (§6.2)")
	} else {
		p.requireNumber(r, "used")
	}
	if _, ok := r.Get("rem"); ok {
		p.requireNumber(r, "rem")
	}
	p.checkQuotaSums(r)
}

// checkOther reports #tag records v1.1 does not define: known later ones
// as LATER, the rest as unknown.
func (p *parser) checkOther(r *Record) {
	if what := laterTag(r.Name); what != "" {
		p.found.add(soft, r.Line, CodeLater, fmt.Sprintf("#%s is %s, not PAIRL v1.1", r.Name, what),
			"strict v1.1 readers reject it; convert to #fact/#ref or use loose mode")
		return
	}
	p.found.add(soft, r.Line, CodeRecord, "unknown record type #"+r.Name,
		"v1.1 records are #fact, #ref, #evid, #rule, #cost, #quota (§3.1)")
}

// laterTag names the later PAIRL version that defines a tag, "" if none.
func laterTag(tag string) string {
	switch tag {
	case "call", "ret", "think", "edit":
		return "a PAIRL v1.2 tool record"
	case "msg":
		return "a PAIRL v1.3 turn marker"
	case "req", "rpt", "s":
		return "a PAIRL v1.5 record"
	}
	if len(tag) >= 2 && strings.IndexByte("uas", tag[0]) >= 0 && allDigits(tag[1:]) {
		return "a PAIRL v1.3 turn marker"
	}
	return ""
}

var (
	errNotRecord    = errors.New("not a record (records start with # or an intent name)")
	errAfterIntent  = errors.New("unexpected text after the intent")
	errUnclosed     = errors.New("intent parameters have no closing }")
	errBadParameter = errors.New("malformed intent parameter")
)

// intentLine reads `name{k=v,…} [@rid=…]` (§4).
func (p *parser) intentLine(text string, line int) {
	r, rid, hasRID, err := parseIntent(text)
	if err != nil {
		p.opaque(text, line, err.Error())
		return
	}
	r.Line = line
	p.setRID(&r, rid, hasRID)
	p.checkTags(&r)
	p.checkDuplicateKeys(&r)
	p.checkIntent(&r)
	p.add(r)
}

// parseIntent splits an intent line into name, parameters and tags.
func parseIntent(text string) (r Record, rid string, hasRID bool, err error) {
	j := 0
	for j < len(text) && (isAlnum(text[j]) || text[j] == '.' || text[j] == '_' || text[j] == '-') {
		j++
	}
	if j == 0 {
		return r, "", false, errNotRecord
	}
	r = Record{Type: TypeIntent, Name: text[:j]}
	rest := text[j:]
	if rest != "" && rest[0] == '{' {
		if r.Fields, rest, err = readParams(rest); err != nil {
			return r, "", false, err
		}
	}
	if rest != "" && !isBlank(rest[0]) {
		return r, "", false, errAfterIntent
	}
	toks, err := tokenize(rest, true)
	if err != nil {
		return r, "", false, err
	}
	toks, r.Tags, rid, hasRID = peelTags(toks)
	if len(toks) > 0 {
		return r, "", false, errAfterIntent
	}
	return r, rid, hasRID, nil
}

// readParams reads `{…}` at the start of s and returns the parameters and
// what follows the closing brace.
func readParams(s string) ([]Field, string, error) {
	parts, end, err := splitParams(s)
	if err != nil {
		return nil, s, err
	}
	var fs []Field
	for _, part := range parts {
		part = strings.Trim(part, blanks)
		if part == "" {
			continue // `{}` and stray commas: "remove redundant whitespace" (§8.3)
		}
		f, err := parseParam(part)
		if err != nil {
			return nil, s, err
		}
		fs = append(fs, f)
	}
	return fs, s[end:], nil
}

// splitParams splits `{a,b}` at the commas outside quotes; quotes open by
// the same rule as everywhere else (see lex.go).
func splitParams(s string) (parts []string, end int, err error) {
	inQuote, prev, start := false, byte('{'), 1
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case inQuote && c == '\\' && i+1 < len(s) && s[i+1] == '"':
			i++
		case inQuote:
			inQuote = c != '"'
		case c == '"' && opensQuote(prev):
			inQuote = true
		case c == '\n':
			return nil, 0, errNewline
		case c == ',':
			parts, start = append(parts, s[start:i]), i+1
		case c == '}':
			return append(parts, s[start:i]), i + 1, nil
		}
		prev = s[i]
	}
	return nil, 0, errUnclosed
}

// parseParam reads one `k=v` (or bare) intent parameter.
func parseParam(part string) (Field, error) {
	eq := strings.IndexByte(part, '=')
	if part[0] == '"' || eq <= 0 {
		v, err := paramValue(part)
		return Field{Value: v}, err
	}
	key := strings.TrimRight(part[:eq], blanks)
	v, err := paramValue(strings.TrimLeft(part[eq+1:], blanks))
	return Field{Key: key, Value: v}, err
}

// paramValue reads a parameter value: a quoted string filling all of s,
// or an atom.
func paramValue(s string) (Value, error) {
	if s != "" && s[0] == '"' {
		text, next, err := readQuoted(s, 0)
		if err != nil || next != len(s) {
			return Value{}, errBadParameter
		}
		return Value{Text: text, Quoted: true}, nil
	}
	if strings.IndexByte(s, '\n') >= 0 {
		return Value{}, errNewline
	}
	return Value{Text: s}, nil
}
