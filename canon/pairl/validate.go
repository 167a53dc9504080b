package pairl

import (
	"fmt"
	"strconv"
	"strings"
)

// Options configure validation. The zero value validates one message in
// loose mode with no other messages known.
type Options struct {
	Mode Mode
	// StrictRefs turns on V4 as `#rule strict_refs=true` does: @parent and
	// every @deps entry must resolve through Thread.
	StrictRefs bool
	// Thread resolves other messages for V4 and V7; nil means none are
	// known, and then V4 is skipped and V7 only sees self-references.
	Thread Thread
	// MaxWalk bounds the messages visited through Thread; 0 means
	// DefaultMaxWalk.
	MaxWalk int
}

func (o Options) maxWalk() int {
	if o.MaxWalk <= 0 {
		return DefaultMaxWalk
	}
	return o.MaxWalk
}

// Validate checks one message against V1–V8 (§10) and returns every
// problem, the syntax findings of Parse included, ordered by line. A
// message is valid in opts.Mode when no problem is an error (see Err).
//
// Without a Thread, V8 compares the message's own #cost records with its
// own @budget; the spend of a whole thread is ValidateThread's job.
// Validate is safe for concurrent use if opts.Thread is.
func Validate(m *Message, opts Options) []Problem {
	ps := validate(m, opts, true)
	sortProblems(ps)
	return ps
}

// validate runs the rules on one message. With single false, ValidateThread
// runs V7 and V8 over the whole thread instead.
func validate(m *Message, opts Options, single bool) []Problem {
	if m == nil {
		return []Problem{{Code: codeInternal, Description: "nil message", Severity: SeverityError}}
	}
	v := &validator{m: m, opts: opts}
	v.v1()
	v.v2()
	v.v3()
	v.v4()
	v.v5()
	v.v6()
	if single {
		v.v7()
		for _, s := range budgetScope(m, []*Message{m}) {
			v.found = append(v.found, s.f)
		}
	}
	v.rules()
	return append(m.found.problems(opts.Mode), v.found.problems(opts.Mode)...)
}

// validator holds one Validate call.
type validator struct {
	m     *Message
	opts  Options
	found findings
}

// rule returns the value of `#rule name=…`, "" if absent.
func (m *Message) rule(name string) string {
	for i := range m.Records {
		r := &m.Records[i]
		if r.Type == TypeRule && len(r.Fields) > 0 && r.Fields[0].Key == name {
			return r.Fields[0].Value.Text
		}
	}
	return ""
}

// v1 applies the No-New-Facts heuristics (§10 V1) to intent values. They
// run in strict mode ("default strict policy") and wherever the message
// asks for them with `#rule no_new_facts=true`; loose mode only warns.
func (v *validator) v1() {
	if v.opts.Mode != Strict && v.m.rule("no_new_facts") != "true" {
		return
	}
	for i := range v.m.Records {
		r := &v.m.Records[i]
		if r.Type != TypeIntent {
			continue
		}
		for _, f := range r.Fields {
			if why := factLike(f); why != "" {
				v.found.add(soft, r.Line, CodeV1, fmt.Sprintf("intent %s: %s=%s %s", r.Name, f.Key, f.Value.Text, why),
					"move it to a #fact or #ref record; intents are lossy (§4.2)")
			}
		}
	}
}

// factLike returns why an intent value looks like a fact, or "". The §4.1
// enumerations (l=0..3, m=0) are style codes, not facts, and are exempt.
func factLike(f Field) string {
	s := f.Value.Text
	switch {
	case isStandardValue(f):
		return ""
	case strings.Contains(strings.ToLower(s), "http://") || strings.Contains(strings.ToLower(s), "https://"):
		return "holds a URL"
	case longHexRun(s) >= 12:
		return "holds a long hex string"
	case strings.ContainsAny(s, "0123456789"):
		return "holds digits"
	}
	return ""
}

// longHexRun returns the length of the longest run of hex digits in s.
func longHexRun(s string) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) || (s[i]|0x20 >= 'a' && s[i]|0x20 <= 'f') {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// v2 applies Evidence Completeness (§10 V2): claim quoted, src a ref,
// conf a number in 0..1.
func (v *validator) v2() {
	for i := range v.m.Records {
		r := &v.m.Records[i]
		if r.Type != TypeEvid {
			continue
		}
		for _, why := range evidProblems(r) {
			v.found.add(hard, r.Line, CodeV2, "#evid "+why,
				`write #evid claim="…" src=ref:… conf=0.xx (§5.3)`)
		}
	}
}

func evidProblems(r *Record) []string {
	var out []string
	if c, ok := r.Get("claim"); !ok {
		out = append(out, "missing claim")
	} else if !c.Quoted {
		out = append(out, "claim is not a quoted string")
	}
	if s, ok := r.Get("src"); !ok {
		out = append(out, "missing src")
	} else if !strings.HasPrefix(s.Text, "ref:") {
		out = append(out, fmt.Sprintf("src %q is not a ref", s.Text))
	}
	if c, ok := r.Get("conf"); !ok {
		out = append(out, "missing conf")
	} else if !isConfidence(c.Text) {
		out = append(out, fmt.Sprintf("conf %q is not a number in 0..1", c.Text))
	}
	return out
}

func isConfidence(s string) bool {
	if !isDecimal(s) {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f >= 0 && f <= 1
}

// v3 applies Ref Format (§10 V3) to every reference: #ref values, #evid
// src, any other value written as `ref:…`, and the message headers.
func (v *validator) v3() {
	for _, h := range v.m.Headers {
		v.v3Header(h)
	}
	for i := range v.m.Records {
		r := &v.m.Records[i]
		if r.Type == TypeIntent || r.Type == TypeOpaque {
			continue
		}
		for _, f := range r.Fields {
			if r.Type == TypeRef || strings.HasPrefix(f.Value.Text, "ref:") {
				v.v3Value(r.Line, "#"+r.Name+" "+f.Key, f.Value.Text)
			}
		}
	}
}

func (v *validator) v3Value(line int, what, val string) {
	if why := refProblem(val); why != "" {
		v.found.add(hard, line, CodeV3, fmt.Sprintf("%s: ref %q %s", what, val, why),
			"write ref:<ns>:<type>:<id> with no spaces (§5.2)")
	}
}

// v3Header checks the message references of @root, @parent and @deps.
func (v *validator) v3Header(h Header) {
	var vals []string
	switch h.Name {
	case "root", "parent":
		vals = []string{h.Value}
	case "deps":
		vals = splitDeps(h.Value)
	}
	for _, val := range vals {
		if !isMsgRef(val) {
			v.found.add(hard, h.Line, CodeV3, fmt.Sprintf("@%s: %q is not a message ref ref:msg:<id>", h.Name, val),
				"reference the message as ref:msg:<id> (§2.2, §9.1)")
		}
	}
}

// v5 verifies @hash (§10 V5): a mismatch, or a value that is not
// ref:hash:sha256:<hex>, is an integrity error.
func (v *validator) v5() {
	h, ok := v.m.Header("hash")
	if !ok {
		return
	}
	want := v.m.Hash()
	switch {
	case h.Value == want:
	case !strings.HasPrefix(h.Value, HashPrefix):
		v.found.add(hard, h.Line, CodeV5, fmt.Sprintf("@hash %q is not ref:hash:sha256:<hex>; the message hashes to %s", h.Value, want),
			"write `@hash "+want+"`")
	default:
		v.found.add(hard, h.Line, CodeV5, fmt.Sprintf("@hash mismatch: declared %s, computed %s", h.Value, want),
			"recompute @hash over the canonical message without its @hash line, or find what changed")
	}
}

// v6 applies RID Uniqueness (§10 V6), case-insensitively since the
// canonical form of a RID is lowercase.
func (v *validator) v6() {
	seen := map[string]int{}
	for i := range v.m.Records {
		r := &v.m.Records[i]
		for _, rid := range recordRIDs(r) {
			if first, dup := seen[rid]; dup {
				v.found.add(hard, r.Line, CodeV6, fmt.Sprintf("@rid=%s already used at line %d", rid, first),
					"give every record of the message its own @rid")
				continue
			}
			seen[rid] = r.Line
		}
	}
}

// recordRIDs returns the RID and any repeated @rid tags of r, lowercase.
func recordRIDs(r *Record) []string {
	var out []string
	for _, t := range r.Tags {
		if t.Key == "rid" {
			out = append(out, asciiLower(t.Value.Text))
		}
	}
	if r.RID != "" {
		out = append(out, r.RID)
	}
	return out
}

// rules applies the size rules a message sets for itself (§5.4, §14.1).
func (v *validator) rules() {
	if n, err := strconv.Atoi(v.m.rule("max_records")); err == nil && len(v.m.Records) > n {
		v.found.add(soft, v.ruleLine("max_records"), CodeLimit,
			fmt.Sprintf("%d records, over #rule max_records=%d", len(v.m.Records), n), "split the message")
	}
	if n, err := strconv.Atoi(v.m.rule("max_size_bytes")); err == nil {
		if size := len(v.m.Canonical()); size > n {
			v.found.add(soft, v.ruleLine("max_size_bytes"), CodeLimit,
				fmt.Sprintf("%d canonical bytes, over #rule max_size_bytes=%d", size, n), "move content behind ref: pointers")
		}
	}
}

func (v *validator) ruleLine(name string) int {
	for _, r := range v.m.Records {
		if r.Type == TypeRule && len(r.Fields) > 0 && r.Fields[0].Key == name {
			return r.Line
		}
	}
	return 0
}
