package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestExplainCheckReindex(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	if code, _, errs := run(t, dir, "", "put", writeFile(t, tmp, "c.json", candidates)); code != 0 {
		t.Fatalf("put: %s", errs)
	}
	intent := writeFile(t, tmp, "intent.json", shoeIntent)
	code, out, errs := run(t, dir, "", "explain", "--at", "2026-05-04T00:00:00Z", intent)
	if code != 0 || !strings.Contains(out, "index.Eq(/category = \"running_shoes\")") ||
		!strings.Contains(out, "bitmap.And") || !strings.Contains(out, "eval.Check: 2 evaluated, 2 accepted") {
		t.Fatalf("explain: %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := run(t, dir, "", "--json", "explain", "--at", "2026-05-04T00:00:00Z", intent); code != 0 || !strings.Contains(out, `"op":"bitmap.And"`) {
		t.Fatalf("explain --json: %s", out)
	}
	if code, out, _ := run(t, dir, "", "check"); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("check: %s", out)
	}
	if code, _, errs := run(t, dir, "", "reindex"); code != 0 || !strings.Contains(errs, "reindexed") {
		t.Fatalf("reindex: %s", errs)
	}
	// The planner and a full scan give the same response body.
	_, planned, _ := run(t, dir, "", "query", "--at", "2026-05-04T00:00:00Z", intent)
	_, scanned, _ := run(t, dir, "", "query", "--no-index", "--at", "2026-05-04T00:00:00Z", intent)
	strip := func(s string) string { return s[:strings.Index(s, `"response_id"`)] }
	if strip(planned) == "" || strings.Count(planned, "candidate_id") != strings.Count(scanned, "candidate_id") {
		t.Fatalf("planner and full scan differ:\n%s\n%s", planned, scanned)
	}
}
