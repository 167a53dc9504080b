package canon

import (
	"time"
)

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
// truncated.
func ParseInstant(s string) (time.Time, bool) {
	if len(s) < len("2006-01-02T15:04:05Z") || (s[10] != 'T' && s[10] != 't') {
		return time.Time{}, false
	}
	y, mo, d, ok := parseDate(s[:10])
	if !ok {
		return time.Time{}, false
	}
	h, mi, sec, ok := parseClock(s[11:19])
	if !ok {
		return time.Time{}, false
	}
	ns, rest := parseFraction(s[19:])
	offset, ok := parseOffset(rest)
	if !ok {
		return time.Time{}, false
	}
	return instant(y, mo, d, h, mi, sec, ns, offset)
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

// parseFraction parses an optional ".digits" and returns the nanoseconds
// and what follows. A "." without digits is left in rest, which then fails
// as an offset.
func parseFraction(s string) (ns int, rest string) {
	if len(s) < 2 || s[0] != '.' || !isDigit(s[1]) {
		return 0, s
	}
	i, scale := 1, 100000000
	for ; i < len(s) && isDigit(s[i]); i++ {
		ns += int(s[i]-'0') * scale
		scale /= 10
	}
	return ns, s[i:]
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
