package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// --version says which source the binary was built from, not "(devel)"
// alone.
func TestVersionFromBuildInfo(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: module, Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "3c1f2a9b8c7d6e5f"},
			{Key: "vcs.time", Value: "2026-11-26T07:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := versionOf(info)
	for _, want := range []string{"v0.3.0", "revision 3c1f2a9b8c7d6e5f", "2026-11-26T07:00:00Z", "uncommitted changes", "go1.26.0"} {
		if !strings.Contains(got, want) {
			t.Errorf("versionOf = %q, want it to contain %q", got, want)
		}
	}
	info.Settings = nil
	info.Main.Version = "(devel)"
	if got := versionOf(info); !strings.Contains(got, "no VCS information") {
		t.Errorf("without VCS settings versionOf = %q, want it to say there is no VCS information", got)
	}
	code, out, _ := run(t, t.TempDir(), "", "--version")
	if code != 0 || !strings.Contains(out, runtime.Version()) {
		t.Errorf("--version: %d %q, want the Go version %s from the build info", code, out, runtime.Version())
	}
}

const module = "github.com/aqlstore/aqlstore"

// A command that only reads never creates a store: a mistyped --dir says
// there is no store there, and how to make one.
func TestReadingCommandsCreateNoStore(t *testing.T) {
	tmp := t.TempDir()
	intent := writeFile(t, tmp, "intent.json", shoeIntent)
	typo := filepath.Join(tmp, "stroe")
	for _, args := range [][]string{{"ls"}, {"stats"}, {"verify"}, {"get", "--kind", "offer", "--key", "o-1"},
		{"check"}, {"query", "--at", "2026-05-04T00:00:00Z", intent}, {"explain", "--at", "2026-05-04T00:00:00Z", intent}} {
		code, _, errs := run(t, typo, "", args...)
		if code == 0 || !strings.Contains(errs, "no store at "+typo) || !strings.Contains(errs, "init") {
			t.Errorf("%v in a missing store: exit %d, %s", args, code, errs)
		}
		if ok, _ := pebbleIn(typo); ok {
			t.Fatalf("%v created a store at %s", args, typo)
		}
	}
	// A --dir naming a file says so, rather than suggest init there.
	if code, _, errs := run(t, intent, "", "ls"); code == 0 || !strings.Contains(errs, "it is a file, not a directory") {
		t.Errorf("ls with --dir a file: exit %d, %s", code, errs)
	}
}

// pebbleIn reports whether dir holds database files.
func pebbleIn(dir string) (bool, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "MANIFEST") || strings.HasSuffix(e.Name(), ".log") {
			return true, nil
		}
	}
	return false, err
}

// snapshot lists the files of dir with their size and modification time;
// LOCK, which Pebble takes read-only too, is left out.
func snapshot(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "LOCK" {
			return err
		}
		info, err := d.Info()
		if err == nil {
			out = append(out, fmt.Sprintf("%s %d %s", p, info.Size(), info.ModTime()))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Commands that only read open the store read-only: they write nothing
// into its directory (a writable open starts a new WAL), so a store
// directory the user may not write works for them.
func TestReadingCommandsOpenReadOnly(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	intent := writeFile(t, tmp, "intent.json", shoeIntent)
	if code, _, errs := run(t, dir, "", "put", writeFile(t, tmp, "c.json", candidates)); code != 0 {
		t.Fatalf("put: %s", errs)
	}
	if code, _, errs := run(t, dir, "", "keys"); code != 0 { // the signing key, which query needs
		t.Fatalf("keys: %s", errs)
	}
	reads := [][]string{{"ls"}, {"stats"}, {"verify"}, {"get", "--kind", "candidate", "--key", "shop-a:sku-001"},
		{"query", "--at", "2026-05-04T00:00:00Z", intent}, {"explain", "--at", "2026-05-04T00:00:00Z", intent}}
	before := snapshot(t, dir)
	for _, args := range reads {
		if code, _, errs := run(t, dir, "", args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
		if after := snapshot(t, dir); !slices.Equal(before, after) {
			t.Fatalf("%v wrote to the store directory:\nbefore %q\nafter  %q", args, before, after)
		}
	}
	if os.Geteuid() == 0 {
		t.Log("running as root, which ignores permission bits: the directory snapshot above stands for the chmod test")
		return
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	for _, args := range reads {
		if code, _, errs := run(t, dir, "", args...); code != 0 {
			t.Errorf("%v in a read-only directory: exit %d: %s", args, code, errs)
		}
	}
}

// Messages name what went wrong, not which package noticed.
func TestMessagesCarryNoPackagePrefix(t *testing.T) {
	for in, want := range map[string]string{
		"store: not found":                        "not found",
		"open store /x: store: corrupt: key 1":    "open store /x: corrupt: key 1",
		"a.json:1: canon: line 1, column 2: bad":  "a.json:1: line 1, column 2: bad",
		"intent: aql: invalid intent: at /a: bad": "intent: invalid intent: at /a: bad",
		"store: conflict: offer \"a\"":            "conflict: offer \"a\"",
		"the store: keeps prose":                  "the store: keeps prose",
	} {
		if got := withoutPackagePrefixes(in); got != want {
			t.Errorf("withoutPackagePrefixes(%q) = %q, want %q", in, got, want)
		}
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	run(t, dir, "", "init")
	bad := writeFile(t, tmp, "bad.json", `{"offer_id": "a", "x": 1, "x": 2}`)
	prefix := regexp.MustCompile(`\b(canon|store|aql|query|index):`)
	for _, args := range [][]string{{"get", "--kind", "offer", "--key", "nope"}, {"get", "00"}, {"query", bad},
		{"delete", "--kind", "offer", "--key", "nope"}, {"--as", "did:web:a.example", "grant", strings.Repeat("0", 64), "did:web:b.example"}} {
		code, _, errs := run(t, dir, "", args...)
		if code == 0 || errs == "" {
			t.Errorf("%v: exit %d with no message", args, code)
		}
		if p := prefix.FindString(errs); p != "" {
			t.Errorf("%v: message carries %q: %s", args, p, errs)
		}
	}
}
