package query

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
	"github.com/cockroachdb/datadriven"
)

// TestPlans shows the plan chosen for each intent in testdata/plan:
//
//	put [owner=DID]      one JSON document per line
//	plan [as=DID] [kinds=a,b]   the constraints JSON; prints the plan's shape
//	                            and checks the planner's answer against a full scan
func TestPlans(t *testing.T) {
	datadriven.Walk(t, "testdata/plan", func(t *testing.T, path string) {
		s, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true, MemTableSize: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "put":
				return putLines(t, s, d)
			case "plan":
				return planCase(t, s, ix, d)
			}
			return fmt.Sprintf("unknown command %q", d.Cmd)
		})
	})
}

func putLines(t *testing.T, s *store.Store, d *datadriven.TestData) string {
	ctx := context.Background()
	owner := store.Public
	if d.HasArg("owner") {
		d.ScanArgs(t, "owner", &owner)
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		ref, err := s.Put(ctx, store.Document{Body: []byte(line), Owner: owner, Kind: canon.KindJSON})
		if err != nil {
			fmt.Fprintf(&out, "error: %v\n", err)
			continue
		}
		fmt.Fprintf(&out, "#%d\n", ref.Num)
	}
	return out.String()
}

func planCase(t *testing.T, s *store.Store, ix *index.Index, d *datadriven.TestData) string {
	principal := store.Public
	if d.HasArg("as") {
		d.ScanArgs(t, "as", &principal)
	}
	src := strings.Replace(`{"intent_id":"urn:oap:intent:plan","issuer_did":"did:web:plan.example","category":"knowledge",
		"constraints":%s,"projection":{"include":["/"]},"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},
		"signature":{"alg":"EdDSA","value":"x"}}`, "%s", d.Input, 1)
	in, err := aql.Parse([]byte(src), nil)
	if err != nil {
		return "invalid: " + err.Error() + "\n"
	}
	plan, err := PlanIntent(s, ix, in, principal, CategoryKinds(in.Category))
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	out := plan.Shape()
	if plan.Sequential {
		out += "fetch: sequential\n"
	}
	return out + "accepted: " + acceptedNums(t, s, in, principal, ix) + "\n"
}

// acceptedNums resolves through the planner and by full scan, fails the
// test when they differ, and lists the accepted documents.
func acceptedNums(t *testing.T, s *store.Store, in *aql.Intent, principal string, ix *index.Index) string {
	ctx := store.WithPrincipal(context.Background(), principal)
	list := func(o *Options) string {
		r := newResolution(in, o)
		if err := r.enumerate(ctx, s); err != nil {
			t.Fatal(err)
		}
		var nums []string
		for _, c := range r.accepted {
			nums = append(nums, fmt.Sprintf("#%d", c.num))
		}
		return strings.Join(nums, " ")
	}
	full := list(&Options{Signer: testSigner(), At: at, MaxRejected: 100})
	planned := list(&Options{Signer: testSigner(), At: at, MaxRejected: 100, Index: ix})
	if full != planned {
		t.Errorf("planner accepted %q, full scan %q", planned, full)
	}
	if planned == "" {
		return "none"
	}
	return planned
}
