package aql

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestParseDataDriven runs testdata/parse: each `parse` case is an intent
// and what a user sees, the compiled tree or every problem with its
// message, so that message wording is reviewed as output. Regenerate
// with `go test ./query/aql -run DataDriven -rewrite`.
func TestParseDataDriven(t *testing.T) {
	datadriven.RunTest(t, "testdata/parse", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "parse" {
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		in, err := Parse([]byte(d.Input), nil)
		if err != nil {
			return err.Error() + "\n"
		}
		return describeIntent(in)
	})
}

// describeIntent renders what Parse compiled, one fact a line.
func describeIntent(in *Intent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "intent %s (%s) by %s, policy %s\n", in.IntentID, in.Category, in.IssuerDID, in.ResolutionPolicy)
	for _, line := range dumpTree(in.Constraints) {
		b.WriteString(line + "\n")
	}
	if in.Budget != nil {
		fmt.Fprintf(&b, "budget %s %s %s top_k=%d shares=%v\n", in.Budget.Amount, in.Budget.Currency, in.Budget.Allocation,
			in.Budget.TopK, in.Budget.Distribution)
	}
	for _, q := range in.QualityFloor {
		fmt.Fprintf(&b, "floor %s %v\n", q.Name, q.Value)
	}
	fmt.Fprintf(&b, "valid %s .. %s\n", formatInstant(in.Validity.From), formatInstant(in.Validity.To))
	return b.String()
}
