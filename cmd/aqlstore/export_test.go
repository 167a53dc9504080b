package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// export writes the tenant's signed export, the server's form: its own
// documents only, with their receipts.
func TestExport(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	const a, b = "did:web:export-a.example", "did:web:export-b.example"
	run(t, dir, `{"offer_id":"o-1","price":"5.00"}`, "--as", a, "put", "-")
	run(t, dir, `{"offer_id":"o-2","price":"6.00"}`, "--as", b, "put", "-")
	code, out, errs := run(t, dir, "", "--as", a, "export")
	if code != 0 {
		t.Fatalf("export: %d %s", code, errs)
	}
	var doc struct {
		ExportVersion string           `json:"export_version"`
		Owner         string           `json:"owner"`
		ExporterDID   string           `json:"exporter_did"`
		Documents     []map[string]any `json:"documents"`
		Receipts      []map[string]any `json:"receipts"`
		Signature     map[string]any   `json:"signature"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, out)
	}
	if doc.ExportVersion != "1" || doc.Owner != a || !strings.HasPrefix(doc.ExporterDID, "did:key:") ||
		len(doc.Documents) != 1 || doc.Documents[0]["natural_key"] != "o-1" || len(doc.Receipts) != 1 || doc.Signature == nil {
		t.Errorf("export: %s", out)
	}
	file := filepath.Join(tmp, "a.json")
	if code, _, errs := run(t, dir, "", "--as", a, "export", "-o", file); code != 0 {
		t.Fatalf("export -o: %s", errs)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), `"owner":"`+a+`"`) {
		t.Errorf("export -o wrote %q (%v)", b, err)
	}
	if code, _, errs := run(t, filepath.Join(tmp, "typo"), "", "--as", a, "export"); code != 1 || !strings.Contains(errs, "no store at") {
		t.Errorf("export of a missing store: %d %s", code, errs)
	}
}
