package canon

import (
	"fmt"
	"sort"
	"strings"
)

// Kind names a document kind. The kind decides how a document is detected,
// validated and keyed, and which AQL categories it answers.
type Kind string

// The JSON document kinds. Message kinds (AIDP, PAIRL, ExecutionIntent) are
// added by their own packages.
const (
	KindJSON      Kind = "json"      // generic JSON; no natural key
	KindManifest  Kind = "manifest"  // OAP tool manifest; key manifest_id or tool.did@tool.version
	KindAction    Kind = "action"    // OAP action; key id@version
	KindOffer     Kind = "offer"     // commercial offer; key offer_id
	KindKnowledge Kind = "knowledge" // knowledge node; key node_id
	KindReceipt   Kind = "receipt"   // receipt; key receipt_id
	KindIntent    Kind = "intent"    // AQL intent; key intent_id
	KindMessage   Kind = "message"   // generic agent message; key message_id
	KindCandidate Kind = "candidate" // OAP candidate shape {id, record, score, cost, quality}; key id
)

var jsonKinds = []Kind{KindJSON, KindManifest, KindAction, KindOffer, KindKnowledge,
	KindReceipt, KindIntent, KindMessage, KindCandidate}

// Kinds returns the JSON document kinds in a stable order.
func Kinds() []Kind { return append([]Kind(nil), jsonKinds...) }

// ParseKind returns the kind named s; an unknown name is an error listing
// the known ones.
func ParseKind(s string) (Kind, error) {
	for _, k := range jsonKinds {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, len(jsonKinds))
	for i, k := range jsonKinds {
		names[i] = string(k)
	}
	sort.Strings(names)
	return "", &DocumentError{Err: ErrUnknownKind,
		Reason: fmt.Sprintf("unknown kind %q (known kinds: %s)", s, strings.Join(names, ", "))}
}

// Document is a parsed, canonical document ready to be stored.
type Document struct {
	Kind       Kind
	Canonical  []byte   // RFC 8785 bytes; what is stored and hashed
	Value      any      // the decoded document (for the candidate shape, its record)
	NaturalKey string   // "" when the kind has none
	Signals    *Signals // ranking signals, nil when none were given
}

// ID returns the content id of the document's canonical bytes.
func (d *Document) ID() ContentID { return Sum(d.Canonical) }

// ParseDocument strictly decodes raw, detects its kind when kind is "",
// checks the kind's rules and returns the canonical document. lim may be
// nil for the defaults.
func ParseDocument(raw []byte, kind Kind, lim *Limits) (*Document, error) {
	if kind != "" {
		if _, err := ParseKind(string(kind)); err != nil {
			return nil, err
		}
	}
	v, err := Decode(raw, lim)
	if err != nil {
		return nil, err
	}
	if kind == "" {
		kind = DetectKind(v)
	}
	doc := &Document{Kind: kind, Value: v}
	if kind == KindCandidate {
		if err := doc.fromCandidate(v); err != nil {
			return nil, err
		}
	} else if doc.NaturalKey, err = naturalKey(kind, v); err != nil {
		return nil, err
	}
	if doc.Canonical, err = canonicalValue(raw, doc.Value, kind == KindCandidate, lim); err != nil {
		return nil, err
	}
	return doc, nil
}

// canonicalValue canonicalizes raw, or for a candidate its record, which is
// the stored document while the envelope's members become signals.
func canonicalValue(raw []byte, v any, isRecord bool, lim *Limits) ([]byte, error) {
	if isRecord {
		raw = AppendValue(nil, v)
	}
	c, _, err := Canonical(raw, lim)
	return c, err
}

// DetectKind guesses a decoded document's kind from its members. The rules,
// in order: the candidate shape; oap_version+tool or manifest_id → manifest;
// intent_id+issuer_did+constraints → intent; id+version+side_effects →
// action; offer_id → offer; node_id → knowledge; receipt_id → receipt;
// message_id → message; anything else → json.
func DetectKind(v any) Kind {
	m, ok := v.(map[string]any)
	if !ok {
		return KindJSON
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := m[n]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case isCandidateShape(m):
		return KindCandidate
	case has("oap_version", "tool"), has("manifest_id"):
		return KindManifest
	case has("intent_id", "issuer_did", "constraints"):
		return KindIntent
	case has("id", "version", "side_effects"):
		return KindAction
	case has("offer_id"):
		return KindOffer
	case has("node_id"):
		return KindKnowledge
	case has("receipt_id"):
		return KindReceipt
	case has("message_id"):
		return KindMessage
	}
	return KindJSON
}

func isCandidateShape(m map[string]any) bool {
	if _, ok := m["id"].(string); !ok {
		return false
	}
	if _, ok := m["record"].(map[string]any); !ok {
		return false
	}
	for name := range m {
		switch name {
		case "id", "record", "score", "cost", "quality":
		default:
			return false
		}
	}
	return true
}

// naturalKey returns the kind's natural key of v, or an error naming the
// member that is missing or wrongly typed.
func naturalKey(kind Kind, v any) (string, error) {
	str := func(ptr ...string) (string, bool) {
		cur := v
		for _, name := range ptr {
			m, ok := cur.(map[string]any)
			if !ok {
				return "", false
			}
			cur = m[name]
		}
		s, ok := cur.(string)
		return s, ok && s != ""
	}
	need := func(ptr ...string) (string, error) {
		if s, ok := str(ptr...); ok {
			return s, nil
		}
		return "", &DocumentError{Kind: kind, Pointer: "/" + strings.Join(ptr, "/"), Err: ErrInvalidDocument,
			Reason: "natural key missing or not a non-empty string",
			Fix:    "add it, or put the document with another --kind (json has no natural key)"}
	}
	switch kind {
	case KindManifest:
		if s, ok := str("manifest_id"); ok {
			return s, nil
		}
		did, err := need("tool", "did")
		if err != nil {
			return "", err
		}
		ver, err := need("tool", "version")
		return did + "@" + ver, err
	case KindAction:
		id, err := need("id")
		if err != nil {
			return "", err
		}
		ver, err := need("version")
		return id + "@" + ver, err
	case KindOffer:
		return need("offer_id")
	case KindKnowledge:
		return need("node_id")
	case KindReceipt:
		return need("receipt_id")
	case KindIntent:
		return need("intent_id")
	case KindMessage:
		return need("message_id")
	case KindCandidate:
		return need("id")
	}
	return "", nil
}
