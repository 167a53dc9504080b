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
	Canonical  []byte   // RFC 8785 bytes; what is stored and hashed (for a candidate, its record)
	NaturalKey string   // "" when the kind has none
	Signals    *Signals // ranking signals, nil when none were given
}

// ID returns the content id of the document's canonical bytes.
func (d *Document) ID() ContentID { return Sum(d.Canonical) }

// Decode returns the decoded document.
func (d *Document) Decode() (any, error) {
	return DecodeCanonical(d.Canonical)
}

// ParseDocument strictly validates raw, detects its kind when kind is "",
// checks the kind's rules and returns the canonical document. lim may be
// nil for the defaults. It builds no tree: kind and keys are read from the
// canonical bytes.
func ParseDocument(raw []byte, kind Kind, lim *Limits) (*Document, error) {
	if kind != "" {
		if _, err := ParseKind(string(kind)); err != nil {
			return nil, err
		}
	}
	c, err := Canonicalize(make([]byte, 0, len(raw)), raw, lim)
	if err != nil {
		return nil, err
	}
	if kind == "" {
		kind = DetectKind(c)
	}
	doc := &Document{Kind: kind, Canonical: c}
	if kind == KindCandidate {
		return doc, doc.fromCandidate(c)
	}
	doc.NaturalKey, err = naturalKey(kind, c)
	return doc, err
}

// DetectKind guesses a document's kind from the members of its canonical
// bytes. The rules, in order: the candidate shape; oap_version+tool or
// manifest_id → manifest; intent_id+issuer_did+constraints → intent;
// id+version+side_effects → action; offer_id → offer; node_id → knowledge;
// receipt_id → receipt; message_id → message; anything else → json.
func DetectKind(c []byte) Kind {
	m := topLevelNames(c)
	has := func(want memberSet) bool { return m&want == want }
	switch {
	case m&^candidateMembers == 0 && has(mID|mRecord|mIDString|mRecordObject):
		return KindCandidate
	case has(mOAPVersion | mTool), has(mManifestID):
		return KindManifest
	case has(mIntentID | mIssuerDID | mConstraints):
		return KindIntent
	case has(mID | mVersion | mSideEffects):
		return KindAction
	case has(mOfferID):
		return KindOffer
	case has(mNodeID):
		return KindKnowledge
	case has(mReceiptID):
		return KindReceipt
	case has(mMessageID):
		return KindMessage
	}
	return KindJSON
}

// memberSet is a bit set of the top-level member names kind detection
// looks at, gathered in one pass over the document.
type memberSet uint32

const (
	mID memberSet = 1 << iota
	mRecord
	mScore
	mCost
	mQuality
	mOAPVersion
	mTool
	mManifestID
	mIntentID
	mIssuerDID
	mConstraints
	mVersion
	mSideEffects
	mOfferID
	mNodeID
	mReceiptID
	mMessageID
	mOther        // a member outside this list
	mIDString     // id is a string
	mRecordObject // record is an object
)

const candidateMembers = mID | mRecord | mScore | mCost | mQuality | mIDString | mRecordObject

var memberBits = map[string]memberSet{
	"id": mID, "record": mRecord, "score": mScore, "cost": mCost, "quality": mQuality,
	"oap_version": mOAPVersion, "tool": mTool, "manifest_id": mManifestID, "intent_id": mIntentID,
	"issuer_did": mIssuerDID, "constraints": mConstraints, "version": mVersion,
	"side_effects": mSideEffects, "offer_id": mOfferID, "node_id": mNodeID,
	"receipt_id": mReceiptID, "message_id": mMessageID,
}

// topLevelNames gathers the memberSet of the object c. Canonical keys are
// compared as written: none of these names needs an escape.
func topLevelNames(c []byte) memberSet {
	var m memberSet
	EachMember(c, func(key, value []byte) bool {
		bit, ok := memberBits[string(key[1:len(key)-1])]
		if !ok {
			bit = mOther
		}
		m |= bit
		if bit == mID && value[0] == '"' {
			m |= mIDString
		}
		if bit == mRecord && value[0] == '{' {
			m |= mRecordObject
		}
		return true
	})
	return m
}

// naturalKey returns the kind's natural key of v, or an error naming the
// member that is missing or wrongly typed.
func naturalKey(kind Kind, c []byte) (string, error) {
	str := func(ptr ...string) (string, bool) {
		raw, ok := Lookup(c, ptr...)
		if !ok {
			return "", false
		}
		s, ok := RawString(raw)
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
