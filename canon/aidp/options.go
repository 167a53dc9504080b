package aidp

import (
	"errors"

	"github.com/aqlstore/aqlstore/canon"
)

// Version is the aidp_version of draft-vandoulas-aidp-02 (§17.5).
const Version = "1.0-draft"

// Profile is the canon profile of the draft's examples: AIDP-JS with the
// §17.3 canonical signing input, which is RFC 8785. The OCR'd draft prints
// it "AIDP-JS-Canonl"; the trailing character is the digit one, as in
// "AIDP-OB-Attest1".
const Profile = "AIDP-JS-Canon1"

// Options tune Parse. A nil *Options means the defaults.
type Options struct {
	// Versions are the aidp_version values accepted; empty means
	// []string{Version}. Any other version is UNSUPPORTED_VERSION.
	Versions []string
	// Profiles are the canon profiles accepted; empty means
	// []string{Profile}. Another profile is UNSUPPORTED_VERSION too: the
	// message may be fine, but we cannot compute its signing input.
	Profiles []string
	// Limits bound the JSON decoder; nil means canon's defaults.
	Limits *canon.Limits
	// AllowUnsignedObservations accepts an OB without proof. §18.2.1
	// requires the proof "by default", so the zero value requires it.
	AllowUnsignedObservations bool
}

// EnsureDefaults fills empty fields with their defaults and returns o.
func (o *Options) EnsureDefaults() *Options {
	if len(o.Versions) == 0 {
		o.Versions = []string{Version}
	}
	if len(o.Profiles) == 0 {
		o.Profiles = []string{Profile}
	}
	return o
}

// Validate reports options that can never accept a message.
func (o *Options) Validate() error {
	for _, v := range append(append([]string(nil), o.Versions...), o.Profiles...) {
		if v == "" {
			return errors.New("aidp: options: empty version or profile")
		}
	}
	return nil
}

// orDefault returns a filled copy of o, leaving the caller's value alone.
func (o *Options) orDefault() Options {
	var c Options
	if o != nil {
		c = *o
	}
	c.EnsureDefaults()
	return c
}
