package canon

import (
	"fmt"
	"sort"
	"strings"
)

// Kind names a document kind. The kind decides how a document is detected,
// validated and keyed, and which AQL categories it answers.
type Kind string

// The JSON document kinds.
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

// The message kinds. Each has a package of its own that parses and
// validates it (canon/aidp, canon/pairl, canon/execintent, which name the
// same kinds); package store dispatches to them. Their names are listed here
// so that kind names are known in one place; a test in store pins them to
// the packages' constants.
const (
	KindAIDPEnvelope    Kind = "aidp-ie"          // AIDP intent envelope; key envelope_id
	KindAIDPObservation Kind = "aidp-ob"          // AIDP observation; key envelope_id NUL execution_id
	KindAIDPProblem     Kind = "aidp-pd"          // AIDP problem details; no natural key
	KindPAIRL           Kind = "pairl"            // PAIRL v1.1 text message; key @mid
	KindExecutionIntent Kind = "execution-intent" // ExecutionIntent.v1; key intentId
)

var jsonKinds = []Kind{KindJSON, KindManifest, KindAction, KindOffer, KindKnowledge,
	KindReceipt, KindIntent, KindMessage, KindCandidate}

var messageKinds = []Kind{KindAIDPEnvelope, KindAIDPObservation, KindAIDPProblem,
	KindPAIRL, KindExecutionIntent}

// Kinds returns the JSON document kinds in a stable order.
func Kinds() []Kind { return append([]Kind(nil), jsonKinds...) }

// MessageKinds returns the message kinds in a stable order. Their documents
// are parsed by their own packages (see package store), not by
// ParseDocument.
func MessageKinds() []Kind { return append([]Kind(nil), messageKinds...) }

// IsMessageKind reports whether k is one of the message kinds.
func IsMessageKind(k Kind) bool {
	for _, m := range messageKinds {
		if k == m {
			return true
		}
	}
	return false
}

// ParseKind returns the kind named s, a JSON or a message kind; an unknown
// name is an error listing the known ones.
func ParseKind(s string) (Kind, error) {
	all := append(Kinds(), messageKinds...)
	for _, k := range all {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, len(all))
	for i, k := range all {
		names[i] = string(k)
	}
	sort.Strings(names)
	return "", &DocumentError{Err: ErrUnknownKind,
		Reason: fmt.Sprintf("unknown kind %q (known kinds: %s)", s, strings.Join(names, ", "))}
}

// Document is a parsed, canonical document ready to be stored.
type Document struct {
	Kind       Kind
	Canonical  []byte   // RFC 8785 bytes; what is stored and hashed (for a candidate, its record; for PAIRL, its §8 text)
	NaturalKey string   // "" when the kind has none
	Signals    *Signals // ranking signals, nil when none were given
	// View is the RFC 8785 JSON that indexes and AQL see, when it differs
	// from Canonical (a PAIRL message's JSON view); nil means Canonical.
	View []byte
	// numbersExact is set by ParseDocument when the one pass met no
	// number literal that might round (Rounded).
	numbersExact bool
}

// ID returns the content id of the document's canonical bytes.
func (d *Document) ID() ContentID { return Sum(d.Canonical) }

// JSON returns the document's JSON view: View when set, else Canonical.
func (d *Document) JSON() []byte {
	if d.View != nil {
		return d.View
	}
	return d.Canonical
}

// Decode returns the decoded JSON view of the document.
func (d *Document) Decode() (any, error) {
	return DecodeCanonical(d.JSON())
}

// ParseDocument strictly validates raw, detects its kind when kind is "",
// checks the kind's rules and returns the canonical document. lim may be
// nil for the defaults. It builds no tree: kind and keys are read from the
// canonical bytes. It handles the JSON kinds only: a message kind, given
// or detected, is ErrUnknownKind here (package store parses those).
func ParseDocument(raw []byte, kind Kind, lim *Limits) (*Document, error) {
	if kind != "" {
		if _, err := ParseKind(string(kind)); err != nil {
			return nil, err
		}
		if IsMessageKind(kind) {
			return nil, &DocumentError{Kind: kind, Err: ErrUnknownKind,
				Reason: fmt.Sprintf("kind %s is a message kind, parsed by its own package", kind),
				Fix:    "put it through package store (store.ParseDocument), which knows every kind"}
		}
	}
	l := limitsOrDefault(lim)
	p := onePassPool.Get().(*onePass)
	defer p.release()
	c, err := p.canonicalize(make([]byte, 0, len(raw)), raw, &l)
	if err != nil {
		return nil, err
	}
	if p.rootOK {
		// The canonicalizer met the root members: no second scan.
		doc, err := parseCanonical(c, kind, rootTable{c, p.root})
		if doc != nil {
			doc.numbersExact = !p.mayRound
		}
		return doc, err
	}
	return parseCanonical(c, kind, rawObject(c))
}

// parseCanonical is ParseDocument past the canonicalizer: kind and keys
// read from the root members r of the canonical bytes c.
func parseCanonical[R rootReader](c []byte, kind Kind, r R) (*Document, error) {
	if kind == "" {
		kind = detectKind(r)
		if IsMessageKind(kind) {
			return nil, &DocumentError{Kind: kind, Err: ErrUnknownKind,
				Reason: fmt.Sprintf("the document has the shape of a %s message, which this function does not parse", kind),
				Fix:    "put it through package store (store.ParseDocument), which knows every kind"}
		}
	}
	doc := &Document{Kind: kind, Canonical: c}
	if kind == KindCandidate {
		return doc, doc.fromCandidate(c)
	}
	var err error
	doc.NaturalKey, err = naturalKey(kind, r)
	return doc, err
}

// rootReader reads the members of a document's root object: from its
// bytes (rawObject), or from the table the canonicalizer kept (rootTable).
type rootReader interface {
	eachMember(fn func(key, value []byte) bool)
	member(name string) ([]byte, bool)
}

// rawObject reads the root members by scanning the bytes.
type rawObject []byte

func (o rawObject) eachMember(fn func(key, value []byte) bool) { EachMember(o, fn) }
func (o rawObject) member(name string) ([]byte, bool)          { return Member(o, name) }

// rootTable reads them from the canonicalizer's offsets into c.
type rootTable struct {
	c []byte
	m []memberOffsets
}

func (t rootTable) eachMember(fn func(key, value []byte) bool) {
	for _, m := range t.m {
		if !fn(t.c[m.start:m.colon], t.c[m.colon+1:m.end]) {
			return
		}
	}
}

func (t rootTable) member(name string) ([]byte, bool) {
	for _, m := range t.m {
		if rawNameEquals(t.c[m.start:m.colon], name) {
			return t.c[m.colon+1 : m.end], true
		}
	}
	return nil, false
}

// DetectKind guesses a document's kind from the members of its canonical
// bytes. The rules, in order: aidp_version+msg_type+payload → the AIDP kind
// msg_type names (aidp-ie when it names none); schemaVersion+intentHash →
// execution-intent; the candidate shape; oap_version+tool or
// manifest_id → manifest; intent_id+issuer_did+constraints → intent;
// id+version+side_effects → action; offer_id → offer; node_id → knowledge;
// receipt_id → receipt; message_id → message; anything else → json.
func DetectKind(c []byte) Kind { return detectKind(rawObject(c)) }

func detectKind[R rootReader](r R) Kind {
	m := topLevelNames(r)
	has := func(want memberSet) bool { return m&want == want }
	switch {
	case has(mAIDPVersion | mMsgType | mPayload):
		return aidpKind(r)
	case has(mSchemaVersion | mIntentHash):
		return KindExecutionIntent
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
	mAIDPVersion
	mMsgType
	mPayload
	mSchemaVersion
	mIntentHash
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
	"aidp_version": mAIDPVersion, "msg_type": mMsgType, "payload": mPayload,
	"schemaVersion": mSchemaVersion, "intentHash": mIntentHash,
}

// aidpKind returns the AIDP kind of the msg_type of c: aidp-ie when
// msg_type is not one of IE, OB, PD, so that the AIDP parser reports it.
func aidpKind[R rootReader](r R) Kind {
	raw, _ := r.member("msg_type")
	switch s, _ := RawString(raw); s {
	case "OB":
		return KindAIDPObservation
	case "PD":
		return KindAIDPProblem
	}
	return KindAIDPEnvelope
}

// LooksLikePAIRL reports whether b reads as PAIRL text rather than JSON:
// its first byte that is not a space, tab, CR or LF is '@', as in the
// `@v 1` header every PAIRL message starts with. JSON never starts so.
func LooksLikePAIRL(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c == '@'
	}
	return false
}

// topLevelNames gathers the memberSet of the object c. Canonical keys are
// compared as written: none of these names needs an escape.
func topLevelNames[R rootReader](r R) memberSet {
	var m memberSet
	r.eachMember(func(key, value []byte) bool {
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

// NaturalKey returns the natural key of a document of kind (what a
// resolver names it as a candidate), read from its JSON bytes c with the
// raw accessors: canonical, or any valid JSON without whitespace or
// duplicate member names, in any member order. An error names the member
// that is missing or wrongly typed. Kinds without a natural key give "".
func NaturalKey(kind Kind, c []byte) (string, error) { return naturalKey(kind, rawObject(c)) }

func naturalKey[R rootReader](kind Kind, r R) (string, error) {
	str := func(ptr ...string) (string, bool) {
		raw, ok := r.member(ptr[0])
		if ok && len(ptr) > 1 {
			raw, ok = Lookup(raw, ptr[1:]...)
		}
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
