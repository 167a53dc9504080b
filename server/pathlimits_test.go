package server

import (
	"strconv"
	"strings"
	"testing"
)

// TestLimitPathsOverHTTP: canon's path limits (store.Options.Limits) are
// a 400 naming the limit and the pointer of the member that crosses it,
// and nothing is stored.
func TestLimitPathsOverHTTP(t *testing.T) {
	ts := startServer(t, nil)
	named := func(id, name string) []byte {
		return []byte(`{"offer_id":"` + id + `","x":{"` + name + `":1}}`)
	}
	ts.putLimit(named("name-1024", strings.Repeat("n", 1024)), true)
	ts.putLimit(named("name-1025", strings.Repeat("n", 1025)), false,
		"member name of 1025 bytes is over the limit of 1024 (Limits.MaxNameBytes)",
		"(at /x/"+strings.Repeat("n", 64)+"...(1025 bytes))", "nothing was stored")
	// Two objects of 10,000 members: 20,003 paths below the root.
	var b strings.Builder
	b.WriteString(`{"offer_id":"paths"`)
	for _, obj := range []string{"y", "z"} {
		b.WriteString(`,"` + obj + `":{`)
		for i := range 10000 {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"m` + strconv.Itoa(i) + `":0`)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	ts.putLimit([]byte(b.String()), false,
		"distinct path 20001 is over the limit of 20000 paths per document (Limits.MaxPaths)", "(at /z/m9997)")
}
