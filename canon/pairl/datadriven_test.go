package pairl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/cockroachdb/datadriven"
)

// TestDataDriven runs the files under testdata/ (regenerate with -rewrite).
// Commands:
//
//	parse [mode=strict]          canonical text, then the Parse problems
//	validate [mode=…] [strict-refs]   the Validate problems and the verdict
//	thread [mode=…] [strict-refs]     ValidateThread over messages split by "==="
//	hash | render | view         Hash, Render, the JSON view (RFC 8785 order)
//
// Inputs get their final LF back (datadriven trims it).
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/datadriven", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return runCommand(t, d)
		})
	})
}

func runCommand(t *testing.T, d *datadriven.TestData) string {
	opts := Options{Mode: modeArg(t, d), StrictRefs: d.HasArg("strict-refs")}
	switch d.Cmd {
	case "parse":
		return parseCmd(d.Input, opts.Mode)
	case "validate":
		m := mustParse(t, d.Input)
		return formatProblems(Validate(m, opts))
	case "thread":
		var msgs []*Message
		for _, part := range strings.Split(d.Input, "\n===\n") {
			msgs = append(msgs, mustParse(t, part))
		}
		return formatProblems(ValidateThread(msgs, opts))
	case "hash":
		return mustParse(t, d.Input).Hash() + "\n"
	case "render":
		return Render(mustParse(t, d.Input))
	case "view":
		return string(canon.AppendValue(nil, mustParse(t, d.Input).View())) + "\n"
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func modeArg(t *testing.T, d *datadriven.TestData) Mode {
	var s string
	if d.HasArg("mode") {
		d.ScanArgs(t, "mode", &s)
	}
	if s == "strict" {
		return Strict
	}
	return Loose
}

// mustParse parses in loose mode; only fatal errors fail the test, syntax
// findings are part of what the commands print.
func mustParse(t *testing.T, in string) *Message {
	t.Helper()
	m, _, err := Parse([]byte(in+"\n"), Loose)
	if m == nil {
		t.Fatalf("parse: %v", err)
	}
	return m
}

func parseCmd(in string, md Mode) string {
	m, ps, err := Parse([]byte(in+"\n"), md)
	if m == nil {
		return fmt.Sprintf("fatal: %v\n", err)
	}
	var b strings.Builder
	b.Write(m.Canonical())
	b.WriteString("--\n")
	b.WriteString(formatProblems(ps))
	return b.String()
}

// formatProblems prints one problem per line and the verdict.
func formatProblems(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		if p.MID != "" {
			fmt.Fprintf(&b, "%s ", p.MID)
		}
		fmt.Fprintf(&b, "%s %s line %d: %s\n", p.Severity, p.Code, p.Line, p.Description)
	}
	if HasErrors(ps) {
		b.WriteString("invalid\n")
	} else {
		b.WriteString("valid\n")
	}
	return b.String()
}
