package canon

import (
	"fmt"
	"regexp"
)

// Signals are the ranking inputs stored beside a document: its score, its
// cost and its quality signals. They are not part of the document's content
// (two owners may store the same content with different signals).
type Signals struct {
	Score   Number         `json:"score,omitempty"`
	Cost    *Cost          `json:"cost,omitempty"`
	Quality map[string]any `json:"quality,omitempty"`
}

// Cost is an exact decimal amount and an optional ISO 4217 currency.
type Cost struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency,omitempty"`
}

// decimalPattern is the decimal-string form of the README: money stays in
// strings because RFC 8785 would turn "100.00" into 100.
var decimalPattern = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// IsDecimal reports whether s is a decimal string (^-?\d+(\.\d+)?$).
func IsDecimal(s string) bool { return decimalPattern.MatchString(s) }

// fromCandidate fills d from the OAP candidate shape: the record is the
// stored document (a member of canonical bytes is itself canonical), the id
// its natural key, the rest its signals.
func (d *Document) fromCandidate(c []byte) error {
	rawID, _ := Member(c, "id")
	d.NaturalKey, _ = RawString(rawID)
	if d.NaturalKey == "" {
		return candidateErr("/id", "want a non-empty string")
	}
	m := map[string]any{}
	for _, name := range []string{"score", "cost", "quality"} {
		if raw, ok := Member(c, name); ok {
			v, err := Decode(raw, nil)
			if err != nil {
				return candidateErr("/"+name, err.Error())
			}
			m[name] = v
		}
	}
	record, ok := Member(c, "record")
	if !ok {
		// Without it the stored document would be zero bytes, not JSON.
		return candidateErr("/record", "missing; want the candidate's record, the document to store")
	}
	d.Canonical = record
	s, err := signalsFrom(m)
	if err != nil {
		return err
	}
	d.Signals = s
	return nil
}

// ParseSignals reads signals given in the candidate shape's members
// (score, cost, quality) of m; it returns nil when m has none of them.
func ParseSignals(m map[string]any) (*Signals, error) { return signalsFrom(m) }

func signalsFrom(m map[string]any) (*Signals, error) {
	var s Signals
	found := false
	if v, ok := m["score"]; ok {
		n, ok := v.(Number)
		if !ok {
			return nil, candidateErr("/score", "want a number")
		}
		s.Score, found = n, true
	}
	if v, ok := m["cost"]; ok {
		c, err := parseCost(v)
		if err != nil {
			return nil, err
		}
		s.Cost, found = c, true
	}
	if v, ok := m["quality"]; ok {
		q, ok := v.(map[string]any)
		if !ok {
			return nil, candidateErr("/quality", "want an object of quality signals")
		}
		s.Quality, found = q, true
	}
	if !found {
		return nil, nil
	}
	return &s, nil
}

// parseCost accepts "79.99", 79.99 or {"amount": "79.99", "currency": "EUR"}.
func parseCost(v any) (*Cost, error) {
	switch v := v.(type) {
	case string:
		if !IsDecimal(v) {
			return nil, candidateErr("/cost", fmt.Sprintf("%q is not a decimal string", v))
		}
		return &Cost{Amount: v}, nil
	case Number:
		if !IsDecimal(string(v)) {
			return nil, candidateErr("/cost", fmt.Sprintf("%s is not a plain decimal; write it as a string like \"79.99\"", v))
		}
		return &Cost{Amount: string(v)}, nil
	case map[string]any:
		amount, ok := v["amount"].(string)
		if !ok || !IsDecimal(amount) {
			return nil, candidateErr("/cost/amount", "want a decimal string like \"79.99\"")
		}
		cur, _ := v["currency"].(string)
		if _, ok := v["currency"]; ok && cur == "" {
			return nil, candidateErr("/cost/currency", "want a non-empty currency code")
		}
		return &Cost{Amount: amount, Currency: cur}, nil
	}
	return nil, candidateErr("/cost", "want a decimal string or {amount, currency}")
}

func candidateErr(ptr, reason string) error {
	return &DocumentError{Kind: KindCandidate, Pointer: ptr, Reason: reason, Err: ErrInvalidDocument}
}

// Value returns the signals as the candidate shape's members (score,
// cost, quality) in the decoded-document model, ready for AppendValue.
func (s *Signals) Value() map[string]any {
	m := map[string]any{}
	if s.Score != "" {
		m["score"] = s.Score
	}
	if s.Cost != nil {
		c := map[string]any{"amount": s.Cost.Amount}
		if s.Cost.Currency != "" {
			c["currency"] = s.Cost.Currency
		}
		m["cost"] = c
	}
	if s.Quality != nil {
		m["quality"] = s.Quality
	}
	return m
}

// Canonical returns s checked and in the form the candidate shape gives
// signals: the score in its RFC 8785 form (1.50 is 1.5), the cost a
// decimal string, the quality signals JSON values with canonical
// numbers. Signals parsed from a document are so already; signals a
// program builds (store.Document.Signals) may hold anything, and are
// stored only through Canonical, so that both ways store the same. A
// score that is not a JSON number or lies outside the double range, a
// cost that is not a decimal string, or a quality value that is not
// JSON is an error naming its pointer within the signals object.
func (s *Signals) Canonical() (*Signals, error) {
	b, err := AppendCanonical(nil, s.Value())
	if err != nil {
		return nil, err
	}
	v, err := DecodeCanonical(b)
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	c, err := signalsFrom(m)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return &Signals{}, nil // none given
	}
	return c, nil
}
