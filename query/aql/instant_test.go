package aql

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

func TestParseInstant(t *testing.T) {
	good := []struct{ in, want string }{
		{"2026-05-03T00:00:00Z", "2026-05-03T00:00:00Z"},
		{"2026-05-03t00:00:00z", "2026-05-03T00:00:00Z"},
		{"2026-05-03T10:20:30.123456789Z", "2026-05-03T10:20:30.123456789Z"},
		{"2026-05-03T10:20:30.1234567891234Z", "2026-05-03T10:20:30.123456789Z"},
		{"2026-05-03T10:20:30.5+02:00", "2026-05-03T08:20:30.5Z"},
		{"2026-05-03T23:30:00-01:30", "2026-05-04T01:00:00Z"},
		{"2026-05-03T00:00:00-00:00", "2026-05-03T00:00:00Z"},
		{"2024-02-29T12:00:00Z", "2024-02-29T12:00:00Z"},
		{"0000-01-01T00:00:00Z", "0000-01-01T00:00:00Z"},
		{"2016-12-31T23:59:60Z", "2016-12-31T23:59:59.999999999Z"},
		{"2017-01-01T00:59:60+01:00", "2016-12-31T23:59:59.999999999Z"},
	}
	for _, c := range good {
		got, ok := ParseInstant(c.in)
		if !ok || !got.Equal(instantOf(t, c.want).T) || got.Location() != time.UTC {
			t.Errorf("ParseInstant(%q) = %v, %v; want %s", c.in, got, ok, c.want)
		}
	}
	bad := []string{
		"", "2026-05-03", "2026-05-03T00:00:00", "2026-05-03 00:00:00Z", "2026-05-03T00:00Z",
		"2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
		"2026-05-03T24:00:00Z", "2026-05-03T00:60:00Z", "2026-05-03T00:00:61Z", "2026-05-03T12:00:60Z",
		"2026-05-03T00:00:00.Z", "2026-05-03T00:00:00+0200", "2026-05-03T00:00:00+24:00", "2026-05-03T00:00:00+02:60",
		"2026-05-03T00:00:00ZZ", "+2026-05-03T00:00:00Z", "2026-5-03T00:00:00Z", "2026-05-03T0:00:00Z",
		"2026-05-03T00:00:00+02", "２０２６-05-03T00:00:00Z", "2026-05-03T00:00:00 Z",
	}
	for _, s := range bad {
		if got, ok := ParseInstant(s); ok {
			t.Errorf("ParseInstant(%q) = %v, want false", s, got)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	good := []struct {
		in   any
		want string
	}{
		{canon.Number("0"), "0"}, {canon.Number("-1.50"), "-1.5"}, {canon.Number("2.5e3"), "2500"},
		{canon.Number("1E-2"), "0.01"}, {"100.00", "100"}, {"-0.001", "-0.001"}, {"007", "7"},
	}
	for _, c := range good {
		d, ok := ParseDecimal(c.in)
		if !ok || d.Cmp(decimal(t, c.want)) != 0 {
			t.Errorf("ParseDecimal(%#v) = %v, %v; want %s", c.in, d, ok, c.want)
		}
	}
	bad := []any{nil, true, 1.5, "1e3", "+1", "1.", ".5", "1,5", "NaN", "", canon.Number("NaN"), canon.Number("Infinity"),
		canon.Number("1e999999"), []any{}, "١٢"}
	for _, v := range bad {
		if d, ok := ParseDecimal(v); ok {
			t.Errorf("ParseDecimal(%#v) = %v, want false", v, d)
		}
	}
}

func TestCheckValidity(t *testing.T) {
	in := parseFixture(t, "minimal.json") // 2026-01-01 to 2027-01-01
	for _, at := range []string{"2026-01-01T00:00:00Z", "2026-06-15T12:00:00Z", "2027-01-01T00:00:00Z"} {
		if err := in.CheckValidity(instantOf(t, at).T); err != nil {
			t.Errorf("at %s: %v", at, err)
		}
	}
	err := in.CheckValidity(instantOf(t, "2027-01-01T00:00:00.000000001Z").T)
	want := "aql: intent is valid from 2026-01-01T00:00:00Z to 2027-01-01T00:00:00Z; evaluated at 2027-01-01T00:00:00.000000001Z is after it (use --at to evaluate at another instant)"
	if !errors.Is(err, ErrOutsideValidity) || err.Error() != want {
		t.Errorf("after: %v", err)
	}
	err = in.CheckValidity(time.Date(2025, 12, 31, 23, 0, 0, 0, time.FixedZone("CET", 3600)))
	if !errors.Is(err, ErrOutsideValidity) || !strings.Contains(err.Error(), "evaluated at 2025-12-31T22:00:00Z is before it") {
		t.Errorf("before: %v", err)
	}
	var ve *ValidityError
	if !errors.As(err, &ve) || ve.Validity != in.Validity {
		t.Errorf("not a *ValidityError: %v", err)
	}
}
