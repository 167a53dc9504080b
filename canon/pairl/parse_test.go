package pairl

import (
	"errors"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

const small = "@v 1\n@mid ref:msg:01HTAAAAAAAAAAAAAAAAAAAAAA\n@ts 2026-03-01T09:00:00Z\n\nreq{t=x} @rid=a1\n#fact deadline=2026-02-05 @rid=f1\n"

func TestParseCRLF(t *testing.T) {
	in := strings.ReplaceAll(small, "\n", "\r\n")
	m, ps, err := Parse([]byte(in), Loose)
	if err != nil || len(ps) != 1 || ps[0].Code != CodeEOL || ps[0].Severity != SeverityWarning {
		t.Fatalf("loose: %v %v", err, ps)
	}
	if got := string(m.Canonical()); got != small {
		t.Errorf("canonical:\n%q", got)
	}
	if _, _, err := Parse([]byte(in), Strict); !errors.Is(err, ErrSyntax) {
		t.Errorf("strict accepted CR LF: %v", err)
	}
}

// TestParseBOM: a leading byte order mark is dropped and reported (a
// warning in loose mode, an error in strict mode), so the headers after it
// are read and the hash is that of the message without it.
func TestParseBOM(t *testing.T) {
	m, ps, err := Parse([]byte("\ufeff"+small), Loose)
	if err != nil || len(ps) != 1 || ps[0].Code != CodeEncoding || ps[0].Line != 1 || ps[0].Severity != SeverityWarning {
		t.Fatalf("loose: %v %v", err, ps)
	}
	plain, _, _ := Parse([]byte(small), Loose)
	if string(m.Canonical()) != small || m.Hash() != plain.Hash() || m.MID() != plain.MID() {
		t.Errorf("canonical:\n%q", m.Canonical())
	}
	if _, ps, err := Parse([]byte("\ufeff"+small), Strict); !errors.Is(err, ErrSyntax) || len(ps) != 1 {
		t.Errorf("strict accepted a BOM: %v %v", err, ps)
	}
}

func TestParseLimits(t *testing.T) {
	cases := []struct {
		in   string
		lim  Limits
		want error
		line int
	}{
		{small, Limits{MaxBytes: 10}, ErrTooLarge, 0},
		{small, Limits{MaxLineBytes: 30}, ErrLineTooLong, 2},
		{small, Limits{MaxRecords: 1}, ErrTooManyRecords, 6},
		{small + "#fact q=\"" + strings.Repeat("a\n", 20) + "\"\n", Limits{MaxLineBytes: 45}, ErrLineTooLong, 7},
		{"@v 1\n\n#fact a=\xff\n", Limits{}, ErrEncoding, 3},
	}
	for _, c := range cases {
		m, ps, err := ParseLimits([]byte(c.in), Loose, &c.lim)
		var pe *Error
		if m != nil || ps != nil || !errors.Is(err, c.want) || !errors.As(err, &pe) || pe.Line != c.line {
			t.Errorf("%v: got %v, %v (line %v)", c.want, m != nil, err, pe)
		}
	}
	if _, _, err := ParseLimits([]byte(small), Loose, &Limits{MaxBytes: -1}); !errors.Is(err, ErrLimits) {
		t.Errorf("negative limit: %v", err)
	}
}

func TestErr(t *testing.T) {
	m, _, _ := Parse([]byte(strings.Replace(small, "@rid=f1", "@rid=a1", 1)), Loose)
	ps := Validate(m, Options{})
	err := Err(ps)
	var pe *Error
	if !errors.Is(err, ErrInvalid) || !errors.As(err, &pe) || pe.Code != CodeV6 || pe.Line != 6 {
		t.Fatalf("Err: %v", err)
	}
	if !strings.Contains(err.Error(), "line 6: [V6]") {
		t.Errorf("message: %s", err)
	}
	if Err(nil) != nil {
		t.Error("Err(nil) != nil")
	}
}

// TestNilSafe: the entry points tolerate a nil message instead of panicking.
func TestNilSafe(t *testing.T) {
	var m *Message
	if Canonical(m) != nil || Render(m) != "" || len(m.View()) != 0 || m.MID() != "" {
		t.Error("nil message")
	}
	if ps := Validate(nil, Options{}); !HasErrors(ps) {
		t.Error("Validate(nil) reported nothing")
	}
	if ps := ValidateThread([]*Message{nil}, Options{}); !HasErrors(ps) {
		t.Error("ValidateThread(nil) reported nothing")
	}
}

// store is a Thread as the store will implement it; it counts lookups.
type store struct {
	MessageSet
	lookups int
}

func (s *store) Lookup(mid string) (*Message, bool) {
	s.lookups++
	return s.MessageSet.Lookup(mid)
}

func msg(t *testing.T, mid, headers string) *Message {
	t.Helper()
	in := "@v 1\n@mid " + mid + "\n@ts 2026-03-01T09:00:00Z\n" + headers + "\nack{t=x} @rid=a1\n"
	m, _, err := Parse([]byte(in), Strict)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestThreadLookup: Validate resolves V4 and V7 through a caller's Thread.
func TestThreadLookup(t *testing.T) {
	a := msg(t, "ref:msg:A", "@parent ref:msg:C\n")
	b := msg(t, "ref:msg:B", "@parent ref:msg:A\n")
	c := msg(t, "ref:msg:C", "@deps ref:msg:B,ref:msg:Z\n")
	st := &store{MessageSet: NewMessageSet(a, b)}
	ps := Validate(c, Options{Mode: Strict, StrictRefs: true, Thread: st})
	codes := []string{}
	for _, p := range ps {
		codes = append(codes, p.Code)
	}
	if strings.Join(codes, ",") != "V4,V7" || st.lookups == 0 {
		t.Errorf("problems %v, lookups %d", ps, st.lookups)
	}
	// Without a Thread, neither rule can see the other messages.
	if ps := Validate(c, Options{Mode: Strict, StrictRefs: true}); len(ps) != 0 {
		t.Errorf("no thread: %v", ps)
	}
	// The thread checks find the same cycle from every side, once each.
	ps = ValidateThread([]*Message{a, b, c}, Options{Mode: Loose, Thread: st})
	if n := countCode(ps, CodeV7); n != 3 {
		t.Errorf("ValidateThread: %d V7, want 3: %v", n, ps)
	}
}

func countCode(ps []Problem, code string) int {
	n := 0
	for _, p := range ps {
		if p.Code == code {
			n++
		}
	}
	return n
}

func TestThreadDuplicateMID(t *testing.T) {
	a := msg(t, "ref:msg:A", "")
	b := msg(t, "ref:msg:A", "@budget 1USD\n")
	ps := ValidateThread([]*Message{a, b}, Options{})
	if countCode(ps, CodeThread) != 1 || !HasErrors(ps) {
		t.Errorf("%v", ps)
	}
}

// TestViewPointer: the view answers the JSON Pointers AQL uses.
func TestViewPointer(t *testing.T) {
	m, _, _ := Parse([]byte(small), Strict)
	v := any(m.View())
	keys := canon.MustParsePointer("/records/*/key").ResolveAll(v, nil)
	if len(keys) != 1 || keys[0] != "deadline" {
		t.Errorf("/records/*/key = %v", keys)
	}
	if got, _ := canon.MustParsePointer("/mid").First(v); got != m.MID() {
		t.Errorf("/mid = %v", got)
	}
}

// TestHashIgnoresLayout: spacing, header order and RID case do not change
// the hash; a different fact does.
func TestHashIgnoresLayout(t *testing.T) {
	a, _, _ := Parse([]byte(small), Strict)
	messy := "@ts 2026-03-01T09:00:00Z\n@v 1\n@mid ref:msg:01HTAAAAAAAAAAAAAAAAAAAAAA\n\n  req{ t=x }   @rid=A1\n#fact\tdeadline=2026-02-05 @rid=F1"
	b, _, _ := Parse([]byte(messy), Loose)
	c, _, _ := Parse([]byte(strings.Replace(small, "02-05", "02-06", 1)), Strict)
	if a.Hash() != b.Hash() || a.Hash() == c.Hash() {
		t.Errorf("%s %s %s", a.Hash(), b.Hash(), c.Hash())
	}
}
