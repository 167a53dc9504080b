package aqlstore_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runnableBlocks returns the shell blocks of the README that follow a
// `<!-- runnable` marker: the commands a new user is told will work as
// printed.
func runnableBlocks(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- runnable[^>]*-->\n```sh\n(.*?)```")
	var blocks []string
	for _, m := range re.FindAllSubmatch(readme, -1) {
		blocks = append(blocks, string(m[1]))
	}
	return blocks
}

// TestReadmeQuickStart runs every runnable block of the README with bash,
// from the module root, as a user on a fresh clone would: each command
// must succeed.
func TestReadmeQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	for _, tool := range []string{"bash", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	blocks := runnableBlocks(t)
	if len(blocks) == 0 {
		t.Fatal("the README has no runnable block: the quick start lost its marker")
	}
	for i, block := range blocks {
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", block)
		// TMPDIR: the block's mktemp lands in the test's own directory.
		cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "AQLSTORE_DIR=")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("README runnable block %d failed: %v\n%s\n--- output\n%s", i+1, err, block, out.String())
		}
		if i == 0 && !strings.Contains(out.String(), `"candidates"`) {
			t.Errorf("the quick start's query printed no response:\n%s", out.String())
		}
	}
}

// Every file the README's and docs/'s commands name under testdata/ is
// shipped (commands run from the module root).
func TestReadmeNamesShippedFiles(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`[@\s\x60(]((?:[a-z]+/)*testdata/[A-Za-z0-9_./-]+\.(?:json|ndjson|pairl))`)
	for _, name := range append([]string{"README.md"}, docs...) {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllSubmatch(text, -1) {
			if _, err := os.Stat(filepath.FromSlash(string(m[1]))); err != nil {
				t.Errorf("%s names %s, which is not in the repository", name, m[1])
			}
		}
	}
}
