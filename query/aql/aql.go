package aql

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/cockroachdb/apd/v3"
	"github.com/dlclark/regexp2/v2"
)

// Operator is one of the closed set of RFC 0020 §3.2.
type Operator uint8

// The operators, in the order RFC 0020 lists them.
const (
	OpEq Operator = iota + 1
	OpNe
	OpLt
	OpLte
	OpGt
	OpGte
	OpIn
	OpNotIn
	OpContains
	OpMatches
	OpBefore
	OpAfter
	OpWithin
	OpOutside
	OpExists
)

var operatorNames = [...]string{"", "eq", "ne", "lt", "lte", "gt", "gte", "in", "not_in", "contains",
	"matches", "before", "after", "within", "outside", "exists"}

// String returns the operator's name as written in an intent.
func (o Operator) String() string {
	if int(o) < len(operatorNames) {
		return operatorNames[o]
	}
	return "invalid"
}

// ParseOperator returns the operator named s, or false when s is not in the
// closed set.
func ParseOperator(s string) (Operator, bool) {
	for i, name := range operatorNames[1:] {
		if name == s {
			return Operator(i + 1), true
		}
	}
	return 0, false
}

// NodeKind says what a constraint node is.
type NodeKind uint8

// Node kinds.
const (
	NodeLeaf NodeKind = iota + 1
	NodeAllOf
	NodeAnyOf
	NodeNot
)

// Node is one node of a compiled constraint tree. The tree is normalized
// when compiled: a top-level array becomes AllOf, and `not` over an array
// ("none of") becomes Not{AnyOf{…}}, so a Not always has one child.
type Node struct {
	Kind     NodeKind
	Children []*Node // AllOf, AnyOf: one or more; Not: exactly one
	Leaf     *Leaf   // NodeLeaf only
	Pointer  string  // JSON Pointer of this node inside the intent, e.g. /constraints/all_of/2
}

// Leaf is a compiled {path, operator, value} constraint: everything that
// can be parsed once is parsed here, so evaluation never re-parses.
type Leaf struct {
	Path     *canon.Pointer
	Operator Operator
	Value    any // the value exactly as the intent wrote it (canon value model)

	// Compiled operands; which are set depends on Operator and Value.
	Decimal  *apd.Decimal    // lt..gte when Value is a number or a decimal string
	Instant  canon.Instant   // lt..gte, before, after when Value is an RFC 3339 timestamp
	IsTime   bool            // Instant is set
	Interval Interval        // within, outside
	Set      []any           // in, not_in: the array's elements
	Regex    *regexp2.Regexp // matches (CompileRegex); MatchTimeout is always set; match with MatchString
	Exists   bool            // exists: the wanted answer
}

// Interval is an inclusive interval of instants.
type Interval struct{ Start, End canon.Instant }

// Evaluation is one leaf's outcome: an entry of a Decision Record's
// constraint_evaluations, in tree order.
type Evaluation struct {
	Path              string // the leaf's path as written
	Operator          string
	Value             any            // the leaf's value as written
	CandidateValue    canon.RawValue // the RFC 8785 bytes of the witness when passed, else of the first resolved value; the Evaluation's own copy
	HasCandidateValue bool           // false when the path resolved to nothing
	Passed            bool
	Reason            string // set when !Passed: why (e.g. "no value at path", "incomparable", "regex timeout"); and when passed under a not that failed
}

// DecodeCandidateValue decodes CandidateValue (the canon value model);
// nil when there is none.
func (e *Evaluation) DecodeCandidateValue() (any, error) {
	if !e.HasCandidateValue {
		return nil, nil
	}
	return canon.DecodeCanonical(e.CandidateValue)
}

// Category is an intent category of RFC 0020 §3.6.
type Category string

// The categories.
const (
	CategoryCommercial   Category = "commercial"
	CategoryKnowledge    Category = "knowledge"
	CategoryAction       Category = "action"
	CategoryDelegation   Category = "delegation"
	CategoryDiscovery    Category = "discovery"
	CategorySubscription Category = "subscription"
)

// Intent is a decoded, validated and compiled AQL intent.
type Intent struct {
	IntentID        string
	IssuerDID       string
	AgentDID        string
	DelegationChain []any
	Category        Category
	Constraints     *Node
	Projection      Projection
	Budget          *Budget         // nil when absent
	QualityFloor    []QualitySignal // in canon.SortedKeys order (a decoded object keeps no written order); empty when absent
	Validity        Validity
	// ResolutionPolicy is single_best, ranked_set (the default) or full_set.
	ResolutionPolicy      string
	MaxEventRatePerMinute int // 0 when absent
	PaymentConstraints    map[string]any
	Signature             Signature

	// Document is the decoded intent, exactly as received; its RFC 8785
	// form without "signature" is what the issuer signed.
	Document map[string]any
}

// Digest is the lowercase hex sha256 of the intent's RFC 8785 form
// without its signature: what the issuer signed. A cursor carries it to
// name the intent it continues.
func (in *Intent) Digest() string {
	doc := make(map[string]any, len(in.Document))
	for k, v := range in.Document {
		if k != "signature" {
			doc[k] = v
		}
	}
	sum := sha256.Sum256(canon.AppendValue(nil, doc))
	return hex.EncodeToString(sum[:])
}

// Projection lists the include and exclude pointers, compiled.
type Projection struct {
	Include []*canon.Pointer
	Exclude []*canon.Pointer
}

// Budget is the intent's cost ceiling.
type Budget struct {
	Amount       *apd.Decimal
	AmountText   string
	Currency     string
	Allocation   string // single_winner, ranked_top_k, proportional_quality
	TopK         int
	Distribution []*apd.Decimal
}

// QualitySignal is one declared floor: a signal name and the bound.
type QualitySignal struct {
	Name  string
	Value any // canon.Number or string (conformance_level)
}

// Validity is the window in which the intent may be answered.
type Validity struct{ From, To time.Time }

// Signature is an intent's or a response's signature block.
type Signature struct {
	Alg   string
	Value string
	Kid   string
}
