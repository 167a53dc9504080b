package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// import stores an export under its owner in another store; a changed
// export or another tenant's is refused and stores nothing.
func TestImport(t *testing.T) {
	tmp := t.TempDir()
	from, to := filepath.Join(tmp, "from"), filepath.Join(tmp, "to")
	const a, b = "did:web:import-a.example", "did:web:import-b.example"
	run(t, from, "{\"offer_id\":\"o-1\",\"price\":\"5.00\"}\n{\"offer_id\":\"o-2\",\"price\":\"7.00\"}\n", "--as", a, "put", "-")
	file := filepath.Join(tmp, "a.json")
	if code, _, errs := run(t, from, "", "--as", a, "export", "-o", file); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	export, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	changed := writeFile(t, tmp, "changed.json", strings.Replace(string(export), `"5.00"`, `"0.01"`, 1))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--as", b, "import", file}, "belongs to " + a},
		{[]string{"--as", a, "import", changed}, "signature does not verify"},
		{[]string{"--as", a, "import", filepath.Join(tmp, "missing.json")}, "missing.json"},
	} {
		if code, _, errs := run(t, to, "", c.args...); code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %s; want %q", c.args, code, errs, c.want)
		}
	}
	if _, out, _ := run(t, to, "", "--as", a, "--json", "ls"); out != "" {
		t.Fatalf("a refused import stored: %s", out)
	}
	code, out, errs := run(t, to, string(export), "--as", a, "import", "-")
	if code != 0 || !strings.Contains(out, "imported 2 documents for "+a) {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	if code, out, _ := run(t, to, "", "--as", a, "get", "--kind", "offer", "--key", "o-2"); code != 0 || !strings.Contains(out, "7.00") {
		t.Errorf("get after import: %d %s", code, out)
	}
	if code, out, _ := run(t, to, string(export), "--as", a, "--json", "import", "-"); code != 0 || !strings.Contains(out, `"imported":2`) {
		t.Errorf("import again (idempotent): %d %s", code, out)
	}
	if code, _, errs := run(t, to, "", "verify"); code != 0 {
		t.Errorf("verify after import: %s", errs)
	}
}
