package pairl

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// HashPrefix starts every @hash value this package writes.
const HashPrefix = "ref:hash:sha256:"

// Canonical returns the canonical form of m (§8): headers in §8.1 order,
// exactly one empty line, one record per line with single spaces, intent
// parameters in §8.3 order, RIDs lowercase, LF after every line including
// the last. The @hash line, if any, is kept (last among the headers). The
// returned slice is the caller's.
func Canonical(m *Message) []byte { return AppendCanonical(nil, m) }

// Canonical is the method form of the package function Canonical.
func (m *Message) Canonical() []byte { return AppendCanonical(nil, m) }

// AppendCanonical appends the canonical form of m to dst.
func AppendCanonical(dst []byte, m *Message) []byte { return appendCanonical(dst, m, true) }

// Hash returns `ref:hash:sha256:<hex>`: the SHA-256 of the canonical form
// without the @hash line, in lowercase hex (the upstream clarification of
// v1.1 that aqlstore adopts; v1.1 itself leaves it circular).
func (m *Message) Hash() string {
	sum := sha256.Sum256(appendCanonical(nil, m, false))
	return HashPrefix + hex.EncodeToString(sum[:])
}

// appendCanonical writes the canonical text, with or without @hash lines.
func appendCanonical(dst []byte, m *Message, withHash bool) []byte {
	if m == nil {
		return dst
	}
	for _, h := range sortedHeaders(m.Headers) {
		if withHash || h.Name != "hash" {
			dst = appendHeader(dst, h)
		}
	}
	dst = append(dst, '\n')
	for i := range m.Records {
		dst = appendRecord(dst, &m.Records[i])
		dst = append(dst, '\n')
		if m.Records[i].blockEnd && i+1 < len(m.Records) {
			// A verbatim columnar block ends at an empty line; without it the
			// next record would read as one more row.
			dst = append(dst, '\n')
		}
	}
	return dst
}

// sortedHeaders returns the headers in canonical order; repeated and
// unknown headers keep their relative order.
func sortedHeaders(hs []Header) []Header {
	out := append([]Header(nil), hs...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rankOf(out[i].Name), rankOf(out[j].Name)
		if ri != rj {
			return ri < rj
		}
		return ri == unknownRank && out[i].Name < out[j].Name
	})
	return out
}

func appendHeader(dst []byte, h Header) []byte {
	dst = append(dst, '@')
	dst = append(dst, h.Name...)
	v := h.Value
	if h.Name == "deps" {
		v = strings.Join(splitDeps(v), ",")
	}
	if v != "" {
		dst = append(dst, ' ')
		dst = append(dst, v...)
	}
	return append(dst, '\n')
}

// appendRecord writes one record in canonical form (§8.3, §8.4).
func appendRecord(dst []byte, r *Record) []byte {
	switch r.Type {
	case TypeOpaque:
		return append(dst, r.Raw...)
	case TypeIntent:
		dst = appendIntent(dst, r)
	default:
		dst = append(dst, '#')
		dst = append(dst, r.Name...)
		for _, f := range r.Fields {
			dst = append(dst, ' ')
			dst = appendField(dst, f)
		}
	}
	return appendTags(dst, r)
}

// appendIntent writes `name{k=v,…}`. Braces are always written: §4 makes
// them optional but recommends them "for uniformity", and a canonical form
// must not distinguish `ack` from `ack{}`.
func appendIntent(dst []byte, r *Record) []byte {
	dst = append(dst, r.Name...)
	dst = append(dst, '{')
	for i, f := range sortedParams(r.Fields) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendField(dst, f)
	}
	return append(dst, '}')
}

// appendTags writes later-version tags, then the @rid last (§8.4).
func appendTags(dst []byte, r *Record) []byte {
	for _, t := range r.Tags {
		dst = append(dst, " @"...)
		dst = append(dst, t.Key...)
		dst = append(dst, '=')
		dst = append(dst, t.Value.Text...)
	}
	if r.RID != "" {
		dst = append(dst, " @rid="...)
		dst = append(dst, r.RID...)
	}
	return dst
}
