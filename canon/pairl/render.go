package pairl

import (
	"fmt"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Render turns m into plain human text (§11). It is deliberately simple and
// deterministic: intents become labelled lines whose style hints are
// spelled out, every #fact and #evid appears verbatim, #evid keeps its
// attribution ("according to …", "Reported:" under an rpt intent), and
// #cost/#quota are formatted as §11 shows ("Cost: $0.02", "Token usage:
// 5,000 / 100,000 (5%)"). Nothing is added that the message does not say;
// language and prose style are left to a downstream renderer (§4.1.1).
// A `fmt` intent hint (bul, num) lays the lossless records out as a list.
func Render(m *Message) string {
	if m == nil {
		return ""
	}
	r := &renderer{m: m, report: hasIntent(m, "rpt"), list: listStyle(m)}
	r.headers()
	r.b.WriteString("\n")
	for i := range m.Records {
		r.record(&m.Records[i])
	}
	return r.b.String()
}

type renderer struct {
	m      *Message
	b      strings.Builder
	report bool   // an rpt intent: evidence renders as reported
	list   string // "bul", "num" or ""
	n      int    // items of a numbered list so far
}

func hasIntent(m *Message, name string) bool {
	for i := range m.Records {
		if m.Records[i].Type == TypeIntent && m.Records[i].Name == name {
			return true
		}
	}
	return false
}

// listStyle returns the first intent's fmt hint.
func listStyle(m *Message) string {
	for i := range m.Records {
		if r := &m.Records[i]; r.Type == TypeIntent {
			v, _ := r.Get("fmt")
			return v.Text
		}
	}
	return ""
}

func (r *renderer) line(format string, args ...any) {
	fmt.Fprintf(&r.b, format, args...)
	r.b.WriteByte('\n')
}

// headers renders the identity, threading and economic headers.
func (r *renderer) headers() {
	mid := r.m.MID()
	if mid == "" {
		mid = "(no @mid)"
	}
	r.line("Message %s at %s", mid, r.m.TS())
	if v := r.m.Root(); v != "" {
		r.line("Thread: %s", v)
	}
	if v := r.m.Parent(); v != "" {
		r.line("In reply to: %s", v)
	}
	if deps := r.m.Deps(); len(deps) > 0 {
		r.line("Depends on: %s", strings.Join(deps, ", "))
	}
	if a, ok := r.m.Budget(); ok {
		r.line("Budget: %s", money(a.Value, a.Unit))
	}
	if a, ok := r.m.Limit(); ok {
		r.line("Limit: %s %s", grouped(a.Value), a.Unit)
	}
}

// record renders one record on one line.
func (r *renderer) record(rec *Record) {
	switch rec.Type {
	case TypeIntent:
		r.line("%s", intentText(rec))
		r.n = 0
	case TypeOpaque:
		r.item("Unreadable line: %s", rec.Raw)
	case TypeOther:
		r.item("Record: %s", appendRecord(nil, rec))
	default:
		r.item("%s", r.lossless(rec))
	}
}

// item writes a lossless record as a list item when fmt asks for one.
func (r *renderer) item(format string, args ...any) {
	switch r.list {
	case "bul":
		r.b.WriteString("- ")
	case "num":
		r.n++
		fmt.Fprintf(&r.b, "%d. ", r.n)
	}
	r.line(format, args...)
}

// lossless renders #fact, #ref, #evid, #rule, #cost and #quota.
func (r *renderer) lossless(rec *Record) string {
	switch rec.Type {
	case TypeEvid:
		return r.evidence(rec)
	case TypeCost:
		return costText(rec)
	case TypeQuota:
		return quotaText(rec)
	}
	if len(rec.Fields) != 1 {
		return string(appendRecord(nil, rec))
	}
	f := rec.Fields[0]
	switch rec.Type {
	case TypeRef:
		return fmt.Sprintf("Reference %s: %s", f.Key, f.Value.Text)
	case TypeRule:
		return fmt.Sprintf("Rule: %s = %s", f.Key, f.Value.Text)
	}
	return fmt.Sprintf("%s: %s", f.Key, f.Value.Text)
}

// evidence keeps the claim verbatim with its source and confidence.
func (r *renderer) evidence(rec *Record) string {
	claim, _ := rec.Get("claim")
	src, _ := rec.Get("src")
	conf, _ := rec.Get("conf")
	s := fmt.Sprintf("%q (according to %s, confidence %s)", claim.Text, src.Text, conf.Text)
	if r.report {
		return "Reported: " + s
	}
	return s
}

// intentText spells out an intent and its §4.1 hints.
func intentText(rec *Record) string {
	label := intentRegistry[rec.Name]
	if label == "" {
		label = rec.Name
	}
	s := capitalize(label)
	if t, ok := rec.Get("t"); ok {
		s += ": " + t.Text
	}
	var hints []string
	for _, f := range sortedParams(rec.Fields) {
		if h := hintText(f); h != "" {
			hints = append(hints, h)
		}
	}
	if len(hints) > 0 {
		s += " (" + strings.Join(hints, ", ") + ")"
	}
	return s
}

// hints are the words for the §4.1 enumerations.
var intentHints = map[string]map[string]string{
	"s":   {"f": "formal", "c": "casual", "t": "terse", "p": "poetic", "e": "elevated"},
	"l":   {"0": "ultra-short", "1": "short", "2": "normal length", "3": "longer"},
	"m":   {"+": "positive", "-": "negative", "!": "urgent", "0": "neutral"},
	"a":   {"i": "internal", "c": "for a client", "p": "public"},
	"u":   {"lo": "low uncertainty", "md": "medium uncertainty", "hi": "high uncertainty"},
	"fmt": {"par": "paragraphs", "bul": "bullets", "num": "numbered list"},
}

func hintText(f Field) string {
	if f.Key == "t" {
		return ""
	}
	if h := intentHints[f.Key][f.Value.Text]; h != "" {
		return h
	}
	if f.Key == "" {
		return f.Value.Text
	}
	return f.Key + "=" + f.Value.Text
}

// costText renders `#cost val=0.02 cur=USD` as "Cost: $0.02".
func costText(rec *Record) string {
	val, _ := rec.Get("val")
	cur, _ := rec.Get("cur")
	s := "Cost: " + money(val.Text, cur.Text)
	var extra []string
	if v, ok := rec.Get("model"); ok {
		extra = append(extra, "model "+v.Text)
	}
	if v, ok := rec.Get("note"); ok {
		extra = append(extra, v.Text)
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, "; ") + ")"
	}
	return s
}

var currencySymbols = map[string]string{"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}

// money writes an amount with its currency symbol when there is one,
// keeping the decimal text exactly (no float rounding).
func money(val, unit string) string {
	if sym := currencySymbols[unit]; sym != "" {
		return sym + grouped(val)
	}
	return grouped(val) + " " + unit
}

// quotaText renders `#quota type=tokens used=5000 total=100000` as
// "Token usage: 5,000 / 100,000 (5%)".
func quotaText(rec *Record) string {
	typ, _ := rec.Get("type")
	total, _ := rec.Get("total")
	label := quotaLabel(typ.Text)
	used, ok := rec.Get("used")
	if !ok {
		return fmt.Sprintf("%s quota: %s", label, grouped(total.Text))
	}
	s := fmt.Sprintf("%s usage: %s / %s", label, grouped(used.Text), grouped(total.Text))
	if p := percent(used.Text, total.Text); p != "" {
		s += " (" + p + "%)"
	}
	if rem, ok := rec.Get("rem"); ok {
		s += ", " + grouped(rem.Text) + " remaining"
	}
	return s
}

func quotaLabel(typ string) string {
	switch typ {
	case "tokens":
		return "Token"
	case "api_calls":
		return "API call"
	case "":
		return "Quota"
	}
	return capitalize(strings.ReplaceAll(typ, "_", " "))
}

// capitalize uppercases the first rune of s.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// percent returns used/total in percent with at most one decimal, or ""
// when either is not a decimal or total is zero.
func percent(used, total string) string {
	u, ok1 := new(big.Rat).SetString(used)
	t, ok2 := new(big.Rat).SetString(total)
	if !ok1 || !ok2 || !isDecimal(used) || !isDecimal(total) || t.Sign() == 0 {
		return ""
	}
	p := new(big.Rat).Quo(new(big.Rat).Mul(u, big.NewRat(100, 1)), t)
	return strings.TrimSuffix(p.FloatString(1), ".0")
}

// grouped adds thousands separators to the integer part of a decimal and
// returns anything else unchanged.
func grouped(s string) string {
	if !isDecimal(s) {
		return s
	}
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}
