package canon

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// rfc3339Syntax is the date-time production of RFC 3339 §5.6, with the
// lowercase "t" and "z" §5.6 allows: the shape, not the ranges.
var rfc3339Syntax = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$`)

// FuzzParseInstant holds ParseInstant to RFC 3339 and to the standard
// library: what it accepts has the date-time shape and is UTC; formatted
// again it reads back to the same instant; and wherever time.Parse also
// reads the text (every RFC 3339 instant but a leap second), the two
// agree on acceptance and on the instant. time.Parse takes offsets RFC
// 3339 refuses (+24:00, +02:60), so those are left out of the comparison.
func FuzzParseInstant(f *testing.F) {
	for _, s := range []string{
		"2026-05-03T00:00:00Z", "2026-05-03t00:00:00z", "2026-05-03T10:20:30.123456789Z",
		"2026-05-03T10:20:30.1234567891234Z", "2026-05-03T10:20:30.5+02:00", "2026-05-03T23:30:00-01:30",
		"2024-02-29T12:00:00Z", "0000-01-01T00:00:00Z", "2016-12-31T23:59:60Z", "2017-01-01T00:59:60+01:00",
		"9999-12-31T23:59:59.999999999-23:59", "", "2026-05-03", "2026-05-03T00:00:00", "2026-02-29T00:00:00Z",
		"2026-05-03T24:00:00Z", "2026-05-03T12:00:60Z", "2026-05-03T00:00:00.Z", "2026-05-03T00:00:00+24:00",
		"2026-05-03T00:00:00+02:60", "２０２６-05-03T00:00:00Z", "2026-05-03T00:00:00 Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseInstant(s)
		if !ok {
			if !got.IsZero() {
				t.Fatalf("%q: refused but returned %v", s, got)
			}
		} else {
			checkAcceptedInstant(t, s, got)
			checkFullInstant(t, s, got)
		}
		if !rfc3339Syntax.MatchString(s) || s[17:19] == "60" || !offsetInRange(s) {
			return // time.Parse has no leap seconds, and is lax about offsets
		}
		want, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
		if (err == nil) != ok || ok && !got.Equal(want) {
			t.Fatalf("%q: ParseInstant %v, %v; time.Parse %v, %v", s, got, ok, want, err)
		}
	})
}

func checkAcceptedInstant(t *testing.T, s string, got time.Time) {
	if !rfc3339Syntax.MatchString(s) || got.Location() != time.UTC {
		t.Fatalf("%q accepted as %v: not an RFC 3339 date-time in UTC", s, got)
	}
	if got.Year() < 0 || got.Year() > 9999 {
		return // an offset moved it outside four-digit years, which RFC 3339 cannot write
	}
	again, ok := ParseInstant(got.Format(time.RFC3339Nano))
	if !ok || !again.Equal(got) {
		t.Fatalf("%q read as %v, which formats as %s and reads back as %v, %v", s, got, got.Format(time.RFC3339Nano), again, ok)
	}
}

// checkFullInstant: ParseInstantFull agrees with ParseInstant to the
// nanosecond, keeps the digits past it without trailing zeros, and its
// String reads back to the same Instant.
func checkFullInstant(t *testing.T, s string, got time.Time) {
	full, ok := ParseInstantFull(s)
	if !ok || !full.T.Equal(got) || strings.HasSuffix(full.Sub, "0") || strings.Trim(full.Sub, "0123456789") != "" {
		t.Fatalf("%q: ParseInstantFull %+v, %v; ParseInstant %v", s, full, ok, got)
	}
	if got.Year() < 0 || got.Year() > 9999 {
		return
	}
	if again, ok := ParseInstantFull(full.String()); !ok || again.Compare(full) != 0 {
		t.Fatalf("%q: %+v writes as %s, which reads back as %+v, %v", s, full, full, again, ok)
	}
}

// offsetInRange reports whether the numeric offset ending s, if any, has
// an hour of 00-23 and a minute of 00-59 (RFC 3339 time-numoffset).
func offsetInRange(s string) bool {
	if z := s[len(s)-1]; z == 'Z' || z == 'z' {
		return true
	}
	off := s[len(s)-6:]
	return off[1:3] <= "23" && off[4:6] <= "59"
}
