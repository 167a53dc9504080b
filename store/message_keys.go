package store

import (
	"encoding/binary"

	"github.com/aqlstore/aqlstore/canon"
)

// Message keys. The message kinds (AIDP, PAIRL, ExecutionIntent) keep
// keys of their own beside the common ones, all under prefixMessage with
// a second byte naming the family:
//
//	'S' 'u' kind 0x00 owner 0x00 class 0x00 value   num[4]: a replay-protected key of an ExecutionIntent
//	                                                (class "replay": tenantId NUL idempotencyKey; "nonce": tenantId NUL nonce)
//	'S' 'q' envelope_id 0x00 owner 0x00 num[4]      empty: an AIDP observation quarantined until its envelope is stored
//	'S' 'a' owner 0x00 envelope_id 0x00 execution_id  digest[32] record: the §11.6.9 audit record of a bound observation
//	'S' 'g' owner 0x00 budget mid 0x00 num[4]       empty: PAIRL message num is governed by that @budget (V8 scope)
//	'S' 'e' owner 0x00 target mid 0x00 num[4]       edge byte ('p' @parent, 'd' @deps): PAIRL DAG edges, for thread trees
//	'S' 'm' num[4]                                  the exact message keys document num owns (delete and verify read it)
//
// Every family's variable parts are NUL-free: owners by checkOwner, the
// AIDP and ExecutionIntent ids by their parsers, PAIRL mids because a ref
// holds no spaces or control characters (V3).
const prefixMessage byte = 'S'

const (
	famUnique     byte = 'u'
	famQuarantine byte = 'q'
	famAudit      byte = 'a'
	famGoverned   byte = 'g'
	famEdge       byte = 'e'
	famOwned      byte = 'm'
)

func appendMessageFamily(dst []byte, fam byte) []byte { return append(dst, prefixMessage, fam) }

func appendParts(dst []byte, parts ...string) []byte {
	for _, p := range parts {
		dst = append(append(dst, p...), 0)
	}
	return dst
}

// AppendUniqueKey appends the key of a replay-protected value of kind
// under owner; class names the rule ("replay", "nonce").
func AppendUniqueKey(dst []byte, kind canon.Kind, owner, class, value string) []byte {
	dst = appendParts(appendMessageFamily(dst, famUnique), string(kind), owner, class)
	return append(dst, value...)
}

// AppendQuarantinePrefix appends the prefix of the quarantine keys of
// envelopeID.
func AppendQuarantinePrefix(dst []byte, envelopeID string) []byte {
	return appendParts(appendMessageFamily(dst, famQuarantine), envelopeID)
}

// AppendQuarantineKey appends the key marking observation num of owner as
// waiting for envelopeID.
func AppendQuarantineKey(dst []byte, envelopeID, owner string, num uint32) []byte {
	dst = append(append(AppendQuarantinePrefix(dst, envelopeID), owner...), 0)
	return binary.BigEndian.AppendUint32(dst, num)
}

// AppendAuditKey appends the key of the audit record of an observation.
func AppendAuditKey(dst []byte, owner, envelopeID, executionID string) []byte {
	dst = appendParts(appendMessageFamily(dst, famAudit), owner, envelopeID)
	return append(dst, executionID...)
}

// AppendGovernedPrefix appends the prefix of the V8 scope of the @budget
// of message budgetMID of owner.
func AppendGovernedPrefix(dst []byte, owner, budgetMID string) []byte {
	return appendParts(appendMessageFamily(dst, famGoverned), owner, budgetMID)
}

// AppendEdgePrefix appends the prefix of the PAIRL edges of owner's
// messages that point at target.
func AppendEdgePrefix(dst []byte, owner, target string) []byte {
	return appendParts(appendMessageFamily(dst, famEdge), owner, target)
}

// AppendOwnedKey appends the key listing the message keys of document num.
func AppendOwnedKey(dst []byte, num uint32) []byte {
	return binary.BigEndian.AppendUint32(appendMessageFamily(dst, famOwned), num)
}

// encodeKeyList and decodeKeyList store a list of keys as uvarint-length
// prefixed byte strings.
func encodeKeyList(keys [][]byte) []byte {
	var dst []byte
	for _, k := range keys {
		dst = binary.AppendUvarint(dst, uint64(len(k)))
		dst = append(dst, k...)
	}
	return dst
}

func decodeKeyList(v []byte) ([][]byte, bool) {
	var keys [][]byte
	for len(v) > 0 {
		n, k := binary.Uvarint(v)
		if k <= 0 || uint64(len(v)-k) < n {
			return nil, false
		}
		keys = append(keys, v[k:k+int(n)])
		v = v[k+int(n):]
	}
	return keys, true
}
