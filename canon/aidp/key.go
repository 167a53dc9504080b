package aidp

import (
	"strings"
)

// keySep joins the parts of a composite key. Ids never contain it (Parse
// rejects NUL in envelope_id and execution_id), and it sorts before every
// other byte, so the keys of one envelope's observations are contiguous
// and follow the envelope_id alone: a prefix scan on
// EnvelopePrefix(envelopeID) finds them all (pull mode, §22.7).
const keySep = "\x00"

// EnvelopeKey returns the natural key of an intent envelope: its
// envelope_id.
func EnvelopeKey(envelopeID string) string { return envelopeID }

// ObservationKey returns the natural key of an observation, the pair
// (envelope_id, execution_id) of §22.15.3 as one string:
// envelopeID + "\x00" + executionID.
func ObservationKey(envelopeID, executionID string) string {
	return envelopeID + keySep + executionID
}

// EnvelopePrefix returns the prefix shared by the ObservationKeys of every
// observation of envelopeID, and by no other key.
func EnvelopePrefix(envelopeID string) string { return envelopeID + keySep }

// SplitObservationKey returns the envelope_id and execution_id of an
// ObservationKey; ok is false when k is not one.
func SplitObservationKey(k string) (envelopeID, executionID string, ok bool) {
	envelopeID, executionID, ok = strings.Cut(k, keySep)
	if !ok || envelopeID == "" || executionID == "" || strings.Contains(executionID, keySep) {
		return "", "", false
	}
	return envelopeID, executionID, true
}
