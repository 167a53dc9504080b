package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"
)

// aidpCommand groups the standalone AIDP-JS tools (draft-vandoulas-aidp-02).
type aidpCommand struct {
	m        *Main
	unsigned bool // --allow-unsigned: accept an OB without proof
}

func (c *aidpCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "aidp",
		Short: "Validate AIDP-JS intent envelopes, observations and problem details (no store needed)",
		Args:  cobra.ArbitraryArgs,
		RunE:  func(_ *cobra.Command, a []string) error { return subcommandMissing("aidp", "validate", a) },
	}
	validate := &cobra.Command{
		Use:   "validate FILE|-",
		Short: "Check an AIDP-JS message (IE, OB or PD): every problem with its line, §18.3 code, JSON Pointer and fix",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(_ *cobra.Command, a []string) error { return c.validate(a[0]) },
	}
	validate.Flags().BoolVar(&c.unsigned, "allow-unsigned", false, "accept an observation without proof (§18.2.1 requires one by default)")
	cmd.AddCommand(validate)
	return cmd
}

// aidpFixes suggest a fix per §18.3 code; the message says what is wrong.
var aidpFixes = map[string]string{
	aidp.CodeMalformedMessage:       "correct the member at the pointer as draft §17.5/§18 define it",
	aidp.CodeUnsupportedVersion:     `send aidp_version "` + aidp.Version + `" and canon "` + aidp.Profile + `"`,
	aidp.CodeInvalidDelegationChain: "make delegation_chain one path of parent_cap_id links that contains authority_ref.cap_id (§18.1.5)",
	aidp.CodeConstraintViolation:    "give constraints a window and max_uses that some execution can satisfy (§18.1.4)",
}

func (c *aidpCommand) validate(file string) error {
	name := inputName(file)
	b, err := readInput(c.m, file)
	if err != nil {
		return err
	}
	msg, err := aidp.Parse(b, &aidp.Options{AllowUnsignedObservations: c.unsigned})
	var list aidp.ErrorList
	if err != nil && !errors.As(err, &list) {
		return fmt.Errorf("%s: %w", name, err)
	}
	if list != nil {
		return c.report(name, b, list)
	}
	desc := aidpSummary(msg)
	if c.m.asJSON {
		key, _ := msg.Key()
		return c.m.printJSON(map[string]any{"file": name, "valid": true, "msg_type": string(msg.Type),
			"key": key, "content_id": canon.Sum(msg.Canonical()).String(), "problems": []any{}})
	}
	_, err = fmt.Fprintf(c.m.Stdout, "%s: valid AIDP %s (%s)\n", name, msg.Type, desc)
	return err
}

// aidpSummary names what identifies a valid message.
func aidpSummary(m *aidp.Message) string {
	switch {
	case m.Envelope != nil:
		return "envelope_id " + m.Envelope.EnvelopeID
	case m.Observation != nil:
		return fmt.Sprintf("envelope_id %s, execution_id %s, status %s", m.Observation.EnvelopeID,
			m.Observation.ExecutionID, m.Observation.Status)
	case m.Problem != nil:
		return "error_code " + m.Problem.ErrorCode
	}
	return string(m.Type)
}

// report prints every problem as `file:line: CODE at /pointer: message`
// with a fix line, or as JSON, and returns the summary error.
func (c *aidpCommand) report(name string, src []byte, list aidp.ErrorList) error {
	loc := newLocator(src)
	if c.m.asJSON {
		ps := make([]map[string]any, len(list))
		for i, e := range list {
			ps[i] = map[string]any{"line": loc.line(e.Pointer), "code": e.Code, "pointer": e.Pointer,
				"message": e.Message, "fix": aidpFixes[e.Code]}
		}
		if err := c.m.printJSON(map[string]any{"file": name, "valid": false, "code": list.Code(), "problems": ps}); err != nil {
			return err
		}
	} else {
		for _, e := range list {
			printPointerProblem(c.m, name, loc.line(e.Pointer), e.Code, e.Pointer, e.Message, aidpFixes[e.Code])
		}
	}
	return fmt.Errorf("%s: invalid AIDP message: %s, %d problem(s)", name, list.Code(), len(list))
}

// printPointerProblem writes one problem of a JSON document.
func printPointerProblem(m *Main, name string, line int, code, ptr, msg, fix string) {
	where := name
	if line > 0 {
		where = fmt.Sprintf("%s:%d", name, line)
	}
	if ptr == "" {
		ptr = "/"
	}
	fmt.Fprintf(m.Stdout, "%s: %s at %s: %s\n", where, code, ptr, msg)
	if fix != "" {
		fmt.Fprintf(m.Stdout, "\tfix: %s\n", fix)
	}
}

// locator finds the line of a JSON Pointer in a document's source, so
// that problems found on the decoded value can name file:line.
type locator struct {
	src   []byte
	lines map[string]int // pointer → line of its first occurrence
}

// newLocator indexes src lazily: a valid document never needs it.
func newLocator(src []byte) *locator { return &locator{src: src} }

// line returns the line of ptr, or of its nearest ancestor present in the
// source (a missing member is reported where its object is); 0 when the
// source is not JSON up to there.
func (l *locator) line(ptr string) int {
	if l.lines == nil {
		l.lines = indexLines(l.src)
	}
	for {
		if n, ok := l.lines[ptr]; ok {
			return n
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return 0
		}
		ptr = ptr[:i]
	}
}

// indexLines maps the pointer of every value (and member name) of src to
// the line it starts on, reading tokens until the end or the first
// syntax error. Duplicate names and bad UTF-8 are allowed: the problems
// it locates may be exactly those.
func indexLines(src []byte) map[string]int {
	lines := map[string]int{}
	dec := jsontext.NewDecoder(strings.NewReader(string(src)),
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		start := dec.InputOffset() + int64(leadingSpace(src[dec.InputOffset():]))
		tok, err := dec.ReadToken()
		if err != nil {
			return lines
		}
		if k := tok.Kind(); k == '}' || k == ']' {
			continue
		}
		p := string(dec.StackPointer())
		if _, seen := lines[p]; !seen {
			lines[p], _ = canon.LineColumn(src, start)
		}
	}
}

// leadingSpace counts the JSON whitespace (and separators) before the
// next token, so that a token's line is where it starts.
func leadingSpace(b []byte) int {
	n := 0
	for n < len(b) {
		switch b[n] {
		case ' ', '\t', '\n', '\r', ',', ':':
			n++
		default:
			return n
		}
	}
	return n
}
