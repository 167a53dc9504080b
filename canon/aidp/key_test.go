package aidp

import (
	"strings"
	"testing"
)

func TestKeys(t *testing.T) {
	ob := mustParse(t, baseOB).Observation
	k := ob.Key()
	if k != ObservationKey(exampleEnvelopeID, "exec-9c2d1a") || !strings.HasPrefix(k, EnvelopePrefix(exampleEnvelopeID)) {
		t.Fatalf("key %q", k)
	}
	env, exec, ok := SplitObservationKey(k)
	if !ok || env != exampleEnvelopeID || exec != "exec-9c2d1a" {
		t.Errorf("split %q %q %v", env, exec, ok)
	}
	for _, bad := range []string{"", "abc", "\x00x", "x\x00", "a\x00b\x00c"} {
		if _, _, ok := SplitObservationKey(bad); ok {
			t.Errorf("SplitObservationKey(%q) ok", bad)
		}
	}
	if ie := mustParse(t, baseIE).Envelope; ie.Key() != exampleEnvelopeID || EnvelopeKey("x") != "x" {
		t.Errorf("envelope key %q", ie.Key())
	}
	// The prefix of envelope "a" must not match the observations of "ab".
	if strings.HasPrefix(ObservationKey("ab", "x"), EnvelopePrefix("a")) {
		t.Error("prefix of a matches ab")
	}
	if IE.Kind() != KindEnvelope || OB.Kind() != KindObservation || PD.Kind() != KindProblem || MsgType("X").Kind() != "" {
		t.Error("kinds")
	}
}
