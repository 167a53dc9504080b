package aql

import (
	"path/filepath"
	"slices"
	"testing"
)

// sharedValidIntents are the published example and fixture intents, paths
// under ../shared/vectors/oap.
var sharedValidIntents = []string{
	"examples/aql/action-intent.json",
	"examples/aql/commercial-intent.json",
	"examples/aql/delegation-intent.json",
	"examples/aql/discovery-intent.json",
	"examples/aql/knowledge-intent.json",
	"examples/aql/subscription-intent.json",
	"test-suite/schema/valid/intent-discovery.json",
}

// TestParseSharedExamples checks that every published example intent
// parses, and that the glob still finds exactly the six examples.
func TestParseSharedExamples(t *testing.T) {
	dir := sharedFile(t, "vectors/oap")
	found, _ := filepath.Glob(filepath.Join(dir, "examples/aql/*-intent.json"))
	if len(found) != 6 {
		t.Errorf("found %d example intents, want 6: %q", len(found), found)
	}
	for _, rel := range sharedValidIntents {
		t.Run(rel, func(t *testing.T) {
			in := mustParse(t, readFile(t, filepath.Join(dir, rel)), nil)
			if in.Constraints == nil || len(in.Projection.Include) == 0 {
				t.Errorf("incomplete intent %+v", in)
			}
		})
	}
}

// TestParseSharedKnowledgeDistribution checks the ranked_top_k example:
// five shares (0.4, 0.25, 0.15, 0.12, 0.08) summed exactly to 1.
func TestParseSharedKnowledgeDistribution(t *testing.T) {
	in := mustParse(t, readFile(t, sharedFile(t, "vectors/oap/examples/aql/knowledge-intent.json")), nil)
	if in.Budget.TopK != 5 || len(in.Budget.Distribution) != 5 {
		t.Errorf("budget %+v", in.Budget)
	}
}

func TestParseSharedBadOperator(t *testing.T) {
	_, err := Parse(readFile(t, sharedFile(t, "vectors/oap/test-suite/schema/invalid/intent-bad-operator.json")), nil)
	if got := problemsOf(t, err); !slices.Equal(got, []string{"/constraints/operator unknown_operator"}) {
		t.Errorf("problems %q", got)
	}
}
