package pairl

import (
	"fmt"
	"testing"
)

// chainThread builds n messages, each the reply to the one before; the
// first holds a budget that the costs of all the others exceed.
func chainThread(t testing.TB, n int) []*Message {
	msgs := make([]*Message, n)
	for i := range msgs {
		h := "@budget 1USD\n"
		if i > 0 {
			h = fmt.Sprintf("@parent ref:msg:M%d\n", i-1)
		}
		in := fmt.Sprintf("@v 1\n@mid ref:msg:M%d\n@ts 2026-03-01T09:00:00Z\n%s\nupd{t=x} @rid=a1\n#cost val=0.01 cur=USD @rid=c1\n", i, h)
		m, _, err := Parse([]byte(in), Strict)
		if err != nil {
			t.Fatal(err)
		}
		msgs[i] = m
	}
	return msgs
}

// TestLongThread: a long reply chain is one budget scope, checked in
// linear time (the walk to the root is memoized).
func TestLongThread(t *testing.T) {
	ps := ValidateThread(chainThread(t, 3000), Options{Mode: Strict, StrictRefs: true})
	if len(ps) != 1 || ps[0].Code != CodeV8 || ps[0].MID != "ref:msg:M0" {
		t.Fatalf("%v", ps)
	}
	if want := "spend 30.00 USD (#cost records: 3000, messages: 3000) exceeds @budget 1USD"; ps[0].Description != want {
		t.Errorf("%q", ps[0].Description)
	}
}

func BenchmarkValidateThread(b *testing.B) {
	msgs := chainThread(b, 1000)
	b.ResetTimer()
	for b.Loop() {
		ValidateThread(msgs, Options{Mode: Strict, StrictRefs: true})
	}
}

// TestLongCycle: a long cycle is found from every edge, in linear time.
func TestLongCycle(t *testing.T) {
	msgs := chainThread(t, 2000)
	last := msgs[len(msgs)-1].MID()
	m, _, err := Parse([]byte("@v 1\n@mid ref:msg:M0\n@ts 2026-03-01T09:00:00Z\n@parent "+last+"\n\nupd{t=x}\n"), Strict)
	if err != nil {
		t.Fatal(err)
	}
	msgs[0] = m
	ps := ValidateThread(msgs, Options{Mode: Loose})
	if n := countCode(ps, CodeV7); n != 2000 || HasErrors(ps) {
		t.Fatalf("%d V7 warnings, errors %v", n, HasErrors(ps))
	}
}

func BenchmarkParse(b *testing.B) {
	in := []byte("@v 1\n@mid ref:msg:01HBAAAAAAAAAAAAAAAAAAAAAA\n@ts 2026-03-01T09:00:00Z\n\n")
	for i := range 999 {
		in = fmt.Appendf(in, "#evid claim=\"claim number %d\" src=ref:url:x:%d conf=0.5 @rid=e%d\n", i, i, i)
	}
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		m, _, _ := Parse(in, Strict)
		_ = Validate(m, Options{Mode: Strict})
	}
}
