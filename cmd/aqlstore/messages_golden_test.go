package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestMessagesGolden runs testdata/messages: what a person sees for the
// commands' common mistakes (no store, unknown kind, not a DID, not
// found, not the owner), so that wording and exit codes are reviewed as
// output. Each case's first line is the command line ($DIR is the case
// file's store, $TMP a scratch directory); lines after it are stdin.
// `aqlstore` shows the exit code, stdout (out:) and stderr (err:);
// `aqlstore-quiet` runs a setup step and fails the test unless it exits 0.
// Regenerate with `go test ./cmd/aqlstore -run MessagesGolden -rewrite`.
func TestMessagesGolden(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	datadriven.RunTest(t, "testdata/messages", func(t *testing.T, d *datadriven.TestData) string {
		line, stdin, _ := strings.Cut(d.Input, "\n")
		line = strings.NewReplacer("$DIR", dir, "$TMP", tmp).Replace(line)
		var out, errb bytes.Buffer
		m := &Main{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}
		code := m.Run(context.Background(), strings.Fields(line))
		switch d.Cmd {
		case "aqlstore-quiet":
			if code != 0 {
				d.Fatalf(t, "exit %d: %s", code, errb.String())
			}
			return ""
		case "aqlstore":
			var b strings.Builder
			fmt.Fprintf(&b, "exit %d\n", code)
			prefixLines(&b, "out: ", out.String())
			prefixLines(&b, "err: ", errb.String())
			return strings.ReplaceAll(strings.ReplaceAll(b.String(), dir, "$DIR"), tmp, "$TMP")
		}
		d.Fatalf(t, "unknown command %s", d.Cmd)
		return ""
	})
}

func prefixLines(b *strings.Builder, prefix, s string) {
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if l != "" {
			b.WriteString(prefix + l + "\n")
		}
	}
}
