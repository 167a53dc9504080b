package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestIndexTextPaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	if code, _, errs := run(t, dir, "", "init", "--text-paths", "/desc,/items/*/title"); code != 0 ||
		!strings.Contains(errs, "text paths: /desc, /items/*/title") {
		t.Fatalf("init --text-paths: %d %s", code, errs)
	}
	if code, _, errs := run(t, dir, `{"desc":"a quiet evening"}`, "put", "-"); code != 0 {
		t.Fatalf("put: %d %s", code, errs)
	}
	if code, out, errs := run(t, dir, "", "--json", "index"); code != 0 || strings.TrimSpace(out) != `{"text_paths":["/desc","/items/*/title"]}` {
		t.Fatalf("index --json: %d %q %s", code, out, errs)
	}
	if code, _, errs := run(t, dir, "", "index", "--text-paths", "desc"); code != exitUsage || !strings.Contains(errs, `text path 1 ("desc")`) {
		t.Fatalf("a text path that is no pointer: %d %s", code, errs)
	}
	if code, _, errs := run(t, dir, "", "index", "--clear-text-paths"); code != 0 || !strings.Contains(errs, "text paths: none; reindexed") {
		t.Fatalf("index --clear-text-paths: %d %s", code, errs)
	}
	if code, out, _ := run(t, dir, "", "index"); code != 0 || !strings.HasPrefix(out, "text paths: none") {
		t.Fatalf("index: %d %q", code, out)
	}
	if code, _, errs := run(t, dir, "", "check"); code != 0 {
		t.Fatalf("check after the reindex: %d %s", code, errs)
	}
}
