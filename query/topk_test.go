package query

import (
	"fmt"
	"testing"
)

// TestFullScanPageJudgesThePage: a page of a full scan judges in full
// (evaluates every leaf for its record, projects its payload) only the
// page's candidates, however many are accepted, and the documents that
// match but fail the projection (each a rejection, judged for its
// record); it answers what the planner answers, page after page.
func TestFullScanPageJudgesThePage(t *testing.T) {
	var docs []string
	unprojected := 0 // shoes without a price: rejected by the projection (R4)
	for i := range 60 {
		id := fmt.Sprintf("c%02d", i)
		switch {
		case i%5 == 0:
			docs = append(docs, fmt.Sprintf(`{"id":"%s","score":0.5,"record":{"name":"%s","category":"hats","price":1}}`, id, id))
		case i%9 == 0:
			unprojected++
			docs = append(docs, fmt.Sprintf(`{"id":"%s","score":0.5,"record":{"name":"%s","category":"shoes"}}`, id, id))
		default:
			docs = append(docs, shoeCandidate(id, fmt.Sprintf("0.%d", i%7), `"1.00"`, ""))
		}
	}
	s, ix := openIndexed(t, docs...)
	const pageSize = 5
	for _, maxRejected := range []int{-1, 100} {
		cursor, pages := "", 0
		for {
			tally := &walkTally{}
			scan := resolve(t, s, shoeIntent("full_set", ""), &Options{PageSize: pageSize, MaxRejected: maxRejected, Cursor: cursor, walks: tally})
			planned := resolve(t, s, shoeIntent("full_set", ""), &Options{PageSize: pageSize, MaxRejected: maxRejected, Cursor: cursor, Index: ix})
			if a, b := responseJSON(scan), responseJSON(planned); a != b {
				t.Fatalf("page %d (MaxRejected %d): the full scan answers\n%s\nthe planner\n%s", pages, maxRejected, a, b)
			}
			wantEvals, wantApplies := pageSize+unprojected, pageSize+unprojected
			if pages == 0 && maxRejected > 0 {
				wantEvals += len(scan.Rejected) // the listed rejections' records
			}
			if tally.evals > wantEvals || tally.applies > wantApplies {
				t.Errorf("page %d (MaxRejected %d): %d evaluations and %d projections, want at most %d and %d",
					pages, maxRejected, tally.evals, tally.applies, wantEvals, wantApplies)
			}
			pages++
			if cursor = scan.NextCursor; cursor == "" {
				break
			}
		}
		if pages < 5 {
			t.Fatalf("%d pages: the test no longer walks several", pages)
		}
	}
}

// TestFullScanHugePage: a page size far above what the store holds (the
// benchmark asks for 1<<30 to get every result on one page) answers as
// the planner does, without setting memory aside for the page size.
func TestFullScanHugePage(t *testing.T) {
	s, ix := openIndexed(t, shoeCandidate("a", "0.5", `"1.00"`, ""), shoeCandidate("b", "0.7", `"1.00"`, ""))
	o := func() *Options { return &Options{PageSize: 1 << 30, MaxRejected: -1} }
	scan := resolve(t, s, shoeIntent("full_set", ""), o())
	po := o()
	po.Index = ix
	planned := resolve(t, s, shoeIntent("full_set", ""), po)
	if a, b := responseJSON(scan), responseJSON(planned); a != b || len(scan.Candidates) != 2 {
		t.Fatalf("the full scan answers\n%s\nthe planner\n%s", a, b)
	}
}
