package canon

import (
	"strings"
	"time"
)

// Instant is an RFC 3339 instant to every fractional digit it was written
// with: T to the nanosecond, and Sub the digits of the fraction past the
// ninth, without trailing zeros. 2026-01-01T00:00:00.1234567891Z is after
// 2026-01-01T00:00:00.123456789Z, though their T are equal.
type Instant struct {
	T   time.Time // UTC
	Sub string    // fraction digits past nanoseconds, "" when none
}

// Compare returns -1, 0 or +1 as a is before, at or after b.
func (a Instant) Compare(b Instant) int {
	if c := a.T.Compare(b.T); c != 0 {
		return c
	}
	return strings.Compare(a.Sub, b.Sub)
}

// String writes a in RFC 3339 form, in UTC, with every fractional digit.
func (a Instant) String() string {
	s := a.T.UTC().Format(time.RFC3339Nano)
	if a.Sub == "" {
		return s
	}
	return a.T.UTC().Format("2006-01-02T15:04:05.000000000") + a.Sub + "Z"
}

// ParseInstantFull is ParseInstant keeping every fractional digit.
func ParseInstantFull(s string) (Instant, bool) {
	t, sub, ok := parseInstant(s)
	return Instant{T: t, Sub: sub}, ok
}

// ParseInstant parses an RFC 3339 date-time (§5.6): "2026-05-03T00:00:00Z",
// with optional fractional seconds and a "Z" or ±hh:mm offset; "T" and "Z"
// may be lowercase. It returns the instant in UTC, or false when s is not
// such a timestamp (a date alone, a missing offset, February 30th...).
//
// It is written out rather than left to time.Parse because time.Parse
// accepts what RFC 3339 does not (a one-digit hour, "24:00") and refuses
// what it allows (a leap second). A leap second, allowed only at 23:59:60
// UTC as in JSON Schema's date-time, becomes 23:59:59.999999999: the last
// instant time.Time has before the next minute, so it still sorts after
// every ordinary instant of that minute. Fractions beyond nanoseconds are
// truncated here; ParseInstantFull keeps them.
func ParseInstant(s string) (time.Time, bool) {
	t, _, ok := parseInstant(s)
	return t, ok
}

// parseInstant parses s as ParseInstant does, and returns the fraction's
// digits past the ninth, trailing zeros dropped.
func parseInstant(s string) (time.Time, string, bool) {
	if len(s) < len("2006-01-02T15:04:05Z") || (s[10] != 'T' && s[10] != 't') {
		return time.Time{}, "", false
	}
	y, mo, d, ok := parseDate(s[:10])
	if !ok {
		return time.Time{}, "", false
	}
	h, mi, sec, ok := parseClock(s[11:19])
	if !ok {
		return time.Time{}, "", false
	}
	ns, sub, rest := parseFraction(s[19:])
	offset, ok := parseOffset(rest)
	if !ok {
		return time.Time{}, "", false
	}
	t, ok := instant(y, mo, d, h, mi, sec, ns, offset)
	if ok && sec == 60 {
		sub = "" // a leap second is the last nanosecond of its minute
	}
	return t, sub, ok
}

// instant assembles a validated date and clock into a UTC instant.
func instant(y, mo, d, h, mi, sec, ns, offset int) (time.Time, bool) {
	leap := sec == 60
	if leap {
		sec, ns = 59, 999999999
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, ns, time.UTC).Add(-time.Duration(offset) * time.Second)
	if leap && (t.Hour() != 23 || t.Minute() != 59) {
		return time.Time{}, false
	}
	return t, true
}

// parseDate parses "yyyy-mm-dd", checking the day against the month.
func parseDate(s string) (y, mo, d int, ok bool) {
	if s[4] != '-' || s[7] != '-' {
		return 0, 0, 0, false
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	ok = ok1 && ok2 && ok3 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysIn(y, mo)
	return y, mo, d, ok
}

func daysIn(y, mo int) int {
	return time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseClock parses "hh:mm:ss"; ss may be 60 (a leap second).
func parseClock(s string) (h, mi, sec int, ok bool) {
	if s[2] != ':' || s[5] != ':' {
		return 0, 0, 0, false
	}
	h, ok1 := digits(s[0:2])
	mi, ok2 := digits(s[3:5])
	sec, ok3 := digits(s[6:8])
	return h, mi, sec, ok1 && ok2 && ok3 && h <= 23 && mi <= 59 && sec <= 60
}

// parseFraction parses an optional ".digits" and returns the nanoseconds,
// the digits past the ninth (trailing zeros dropped) and what follows. A
// "." without digits is left in rest, which then fails as an offset.
func parseFraction(s string) (ns int, sub, rest string) {
	if len(s) < 2 || s[0] != '.' || !isDigit(s[1]) {
		return 0, "", s
	}
	i, scale := 1, 100000000
	for ; i < len(s) && isDigit(s[i]); i++ {
		ns += int(s[i]-'0') * scale
		scale /= 10
	}
	if i > 10 {
		sub = strings.TrimRight(s[10:i], "0")
	}
	return ns, sub, s[i:]
}

// parseOffset parses "Z", "z" or "±hh:mm" into seconds east of UTC.
func parseOffset(s string) (int, bool) {
	if s == "Z" || s == "z" {
		return 0, true
	}
	if len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return 0, false
	}
	h, ok1 := digits(s[1:3])
	m, ok2 := digits(s[4:6])
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, false
	}
	off := (h*60 + m) * 60
	if s[0] == '-' {
		off = -off
	}
	return off, true
}

// digits parses a fixed-width run of ASCII digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
