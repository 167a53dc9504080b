package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// delete removes the owner's document by id or by kind and key; another
// tenant cannot, and a deleted document is gone for get and ls.
func TestDelete(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	const owner, other = "did:web:owner.example", "did:web:other.example"
	code, out, errs := run(t, dir, "{\"offer_id\":\"o-1\"}\n{\"offer_id\":\"o-2\"}\n", "--as", owner, "--json", "put", "-")
	if code != 0 {
		t.Fatalf("put: %s", errs)
	}
	var first struct{ ID string }
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, dir, "", "--as", other, "delete", first.ID); code != 1 || !strings.Contains(errs, "not found") {
		t.Errorf("another tenant's delete: exit %d, %s", code, errs)
	}
	if code, _, errs := run(t, dir, "", "delete", "--kind", "offer", "--key", "o-2"); code != 1 || !strings.Contains(errs, "--as DID") {
		t.Errorf("public's delete of a tenant's document: exit %d, %s", code, errs)
	}
	code, out, errs = run(t, dir, "", "--as", owner, "delete", first.ID)
	if code != 0 || !strings.Contains(out, "deleted "+first.ID) {
		t.Fatalf("delete by id: exit %d, %s %s", code, out, errs)
	}
	code, out, errs = run(t, dir, "", "--as", owner, "--json", "delete", "--kind", "offer", "--key", "o-2")
	if code != 0 || !strings.Contains(out, `"op":"delete"`) || !strings.Contains(out, `"owner":"`+owner+`"`) {
		t.Fatalf("delete by key: exit %d, %s %s", code, out, errs)
	}
	if code, _, _ := run(t, dir, "", "--as", owner, "get", first.ID); code != 1 {
		t.Errorf("get after delete: exit %d", code)
	}
	if _, out, _ := run(t, dir, "", "--as", owner, "--json", "ls"); out != "" {
		t.Errorf("ls after deleting both: %s", out)
	}
	if code, _, errs := run(t, dir, "", "--as", owner, "delete", first.ID); code != 1 || !strings.Contains(errs, "not found") {
		t.Errorf("second delete: exit %d, %s", code, errs)
	}
	for _, args := range [][]string{{"delete"}, {"delete", "xyz"}, {"delete", first.ID, "--kind", "offer", "--key", "o-1"}} {
		if code, _, _ := run(t, dir, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, errs := run(t, dir, "", "verify"); code != 0 {
		t.Errorf("verify after deletes: %s", errs)
	}
}
