package pairl

import (
	"github.com/aqlstore/aqlstore/canon"
)

// View returns the JSON view of m that aqlstore indexes and AQL queries,
// in the canon value model (nil, bool, string, canon.Number, []any,
// map[string]any). doc.go documents the mapping. The view depends only on
// what canonicalization keeps, never on line numbers or spacing, so a
// message and its canonical form have the same view. The returned value is
// new on every call and owned by the caller.
func (m *Message) View() map[string]any {
	v := map[string]any{}
	if m == nil {
		return v
	}
	for _, h := range m.Headers {
		viewHeader(v, h)
	}
	recs := make([]any, 0, len(m.Records))
	for i := range m.Records {
		recs = append(recs, viewRecord(&m.Records[i]))
	}
	v["records"] = recs
	return v
}

// viewHeader adds one header; of repeated headers the first wins.
func viewHeader(v map[string]any, h Header) {
	switch h.Name {
	case "v":
		setOnce(v, "v", number(h.Value))
	case "mid", "ts", "root", "parent", "hash":
		setOnce(v, h.Name, h.Value)
	case "deps":
		setOnce(v, "deps", anyStrings(splitDeps(h.Value)))
	case "budget":
		setOnce(v, "budget", amountView(h.Value, false))
	case "limit":
		setOnce(v, "limit", amountView(h.Value, true))
	default:
		others, _ := v["headers"].(map[string]any)
		if others == nil {
			others = map[string]any{}
			v["headers"] = others
		}
		setOnce(others, h.Name, h.Value)
	}
}

func setOnce(v map[string]any, k string, x any) {
	if _, ok := v[k]; !ok {
		v[k] = x
	}
}

func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// amountView maps `0.50USD` to {"amount": "0.50", "unit": "USD"}. Money
// stays a decimal string (JCS would turn 0.50 into 0.5); a @limit amount is
// an integer count and becomes a number. A malformed value stays a string.
func amountView(s string, limit bool) any {
	a, ok := parseAmount(s, limit)
	if !ok {
		return s
	}
	var amount any = a.Value
	if limit {
		amount = number(a.Value)
	}
	return map[string]any{"amount": amount, "unit": a.Unit}
}

// number returns s as a canon.Number when it is a valid JSON number
// literal, else as a string (e.g. "007", which JSON cannot hold).
func number(s string) any {
	if !isDecimal(s) || (len(s) > 1 && s[0] == '0' && s[1] != '.') {
		return s
	}
	return canon.Number(s)
}

// fieldMap says where each known field of a record type goes in the view
// and whether its value is a number.
type fieldMap map[string]struct {
	name   string
	number bool
}

var viewFields = map[RecordType]fieldMap{
	TypeEvid:  {"claim": {"claim", false}, "src": {"src", false}, "conf": {"conf", true}},
	TypeCost:  {"val": {"val", false}, "cur": {"cur", false}, "model": {"model", false}, "note": {"note", false}},
	TypeQuota: {"type": {"resource", false}, "total": {"total", true}, "used": {"used", true}, "rem": {"rem", true}},
}

// viewRecord maps one record to its typed object.
func viewRecord(r *Record) map[string]any {
	o := map[string]any{"type": r.Type.String()}
	switch r.Type {
	case TypeOpaque:
		o["raw"] = r.Raw
	case TypeIntent:
		o["intent"] = r.Name
		o["params"] = map[string]any{}
		viewFieldsInto(o, r.Fields, "params")
	case TypeFact, TypeRef, TypeRule:
		viewPair(o, r.Fields)
	case TypeOther:
		o["tag"] = r.Name
		viewFieldsInto(o, r.Fields, "fields")
	default:
		viewKnown(o, r.Fields, viewFields[r.Type])
	}
	viewTags(o, r)
	return o
}

// viewPair maps the key=value of #fact, #ref and #rule to "key"/"value";
// any further fields (malformed) go to "fields"/"args".
func viewPair(o map[string]any, fs []Field) {
	for i, f := range fs {
		if f.Key != "" {
			o["key"], o["value"] = f.Key, f.Value.Text
			viewFieldsInto(o, append(fs[:i:i], fs[i+1:]...), "fields")
			return
		}
	}
	viewFieldsInto(o, fs, "fields")
}

// viewKnown maps the fields of #evid, #cost and #quota by fieldMap; the
// rest go to "fields"/"args".
func viewKnown(o map[string]any, fs []Field, fm fieldMap) {
	var rest []Field
	for _, f := range fs {
		spec, ok := fm[f.Key]
		if _, taken := o[spec.name]; !ok || taken {
			rest = append(rest, f)
			continue
		}
		if spec.number {
			o[spec.name] = number(f.Value.Text)
		} else {
			o[spec.name] = f.Value.Text
		}
	}
	viewFieldsInto(o, rest, "fields")
}

// viewFieldsInto puts keyed fields into the object o[name] (first wins)
// and bare values into o["args"]; nothing is added for no fields.
func viewFieldsInto(o map[string]any, fs []Field, name string) {
	for _, f := range fs {
		if f.Key == "" {
			args, _ := o["args"].([]any)
			o["args"] = append(args, f.Value.Text)
			continue
		}
		m, _ := o[name].(map[string]any)
		if m == nil {
			m = map[string]any{}
			o[name] = m
		}
		setOnce(m, f.Key, f.Value.Text)
	}
}

// viewTags adds "rid" and later-version "tags".
func viewTags(o map[string]any, r *Record) {
	if r.RID != "" {
		o["rid"] = r.RID
	}
	for _, t := range r.Tags {
		m, _ := o["tags"].(map[string]any)
		if m == nil {
			m = map[string]any{}
			o["tags"] = m
		}
		setOnce(m, t.Key, t.Value.Text)
	}
}
