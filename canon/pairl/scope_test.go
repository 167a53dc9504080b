package pairl

import "testing"

func TestGoverningAndCheckBudget(t *testing.T) {
	parse := func(s string) *Message {
		m, _, err := Parse([]byte(s), Loose)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := parse("@v 1\n@mid ref:msg:a\n@ts 2026-01-31T10:00:00Z\n@budget 0.50USD\n\nreq{t=x} @rid=a1\n")
	b := parse("@v 1\n@mid ref:msg:b\n@ts 2026-01-31T10:00:01Z\n@parent ref:msg:a\n\ncmp{t=x} @rid=a1\n#cost val=0.30 cur=USD @rid=c1\n")
	c := parse("@v 1\n@mid ref:msg:c\n@ts 2026-01-31T10:00:02Z\n@parent ref:msg:b\n\ncmp{t=x} @rid=a1\n#cost val=0.25 cur=USD @rid=c1\n")
	th := NewMessageSet(a, b, c)
	if g := Governing(c, th, 0); g != a {
		t.Fatalf("governing of c: %v", g)
	}
	if g := Governing(b, nil, 0); g != nil {
		t.Fatalf("governing of b without a thread: %v", g)
	}
	if ps := CheckBudget(a, []*Message{a, b}, Loose); HasErrors(ps) {
		t.Fatalf("0.30 of 0.50: %v", ps)
	}
	ps := CheckBudget(a, []*Message{a, b, c}, Loose)
	if !HasErrors(ps) || ps[len(ps)-1].Code != CodeV8 || ps[len(ps)-1].MID != "ref:msg:a" {
		t.Fatalf("0.55 of 0.50: %v", ps)
	}
}
