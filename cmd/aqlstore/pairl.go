package main

import (
	"errors"
	"fmt"

	"github.com/aqlstore/aqlstore/canon/pairl"
	"github.com/spf13/cobra"
)

// pairlCommand groups the standalone PAIRL v1.1 tools. None of them opens
// a store: they read one message from a file or stdin ("-").
type pairlCommand struct {
	m          *Main
	strict     bool // --strict: validate (and read) in strict mode
	strictRefs bool // --strict-refs: V4 on, with no other message known
}

func (c *pairlCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pairl",
		Short: "Validate, canonicalize, hash and render PAIRL v1.1 messages (no store needed)",
		Args:  cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, a []string) error {
			return subcommandMissing("pairl", "validate, canon, hash, render", a)
		},
	}
	validate := &cobra.Command{
		Use:   "validate [--strict] FILE|-",
		Short: "Check a PAIRL message against V1-V8; every problem with its line, code and fix",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(_ *cobra.Command, a []string) error { return c.validate(a[0]) },
	}
	validate.Flags().BoolVar(&c.strict, "strict", false, "strict mode: what loose mode warns about is an error")
	validate.Flags().BoolVar(&c.strictRefs, "strict-refs", false, "V4: @parent and @deps must resolve (no other message is known here)")
	canonCmd := &cobra.Command{
		Use:   "canon FILE|-",
		Short: "Print the canonical form of a PAIRL message (§8)",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(_ *cobra.Command, a []string) error { return c.print(a[0], canonText) },
	}
	hash := &cobra.Command{
		Use:   "hash FILE|-",
		Short: "Print the @hash of a PAIRL message: ref:hash:sha256:<hex> of its canonical form without @hash",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(_ *cobra.Command, a []string) error { return c.hash(a[0]) },
	}
	render := &cobra.Command{
		Use:   "render FILE|-",
		Short: "Render a PAIRL message as plain text for a human reader (§11)",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(_ *cobra.Command, a []string) error { return c.print(a[0], pairl.Render) },
	}
	for _, sub := range []*cobra.Command{canonCmd, hash, render} {
		sub.Flags().BoolVar(&c.strict, "strict", false, "refuse what strict mode rejects (later-version constructs, layout)")
	}
	cmd.AddCommand(validate, canonCmd, hash, render)
	return cmd
}

// subcommandMissing is the RunE of a command group: cobra would print
// help and exit 0 for a missing or unknown subcommand; that is a usage
// error here.
func subcommandMissing(group, subs string, a []string) error {
	if len(a) == 0 {
		return usageError{fmt.Errorf("%s: name a subcommand: %s", group, subs)}
	}
	return usageError{fmt.Errorf("unknown command %q for \"aqlstore %s\" (subcommands: %s)", a[0], group, subs)}
}

func (c *pairlCommand) mode() pairl.Mode {
	if c.strict {
		return pairl.Strict
	}
	return pairl.Loose
}

// validateReport is the --json form of one validation.
type validateReport struct {
	File     string        `json:"file"`
	Valid    bool          `json:"valid"`
	Mode     string        `json:"mode"`
	MID      string        `json:"mid,omitempty"`
	Hash     string        `json:"hash,omitempty"`
	Problems []problemJSON `json:"problems"`
}

type problemJSON struct {
	Line        int    `json:"line"`
	Severity    string `json:"severity"`
	Code        string `json:"code"`
	Description string `json:"description"`
	Fix         string `json:"fix,omitempty"`
}

// validate parses and validates one message and reports every problem.
func (c *pairlCommand) validate(file string) error {
	name, m, err := c.read(file)
	if m == nil {
		return err
	}
	ps := pairl.Validate(m, pairl.Options{Mode: c.mode(), StrictRefs: c.strictRefs, Thread: c.thread()})
	nerr := 0
	for _, p := range ps {
		if p.Severity == pairl.SeverityError {
			nerr++
		}
	}
	if c.m.asJSON {
		if err := c.m.printJSON(pairlReport(name, c.mode(), m, ps)); err != nil {
			return err
		}
	} else {
		for _, p := range ps {
			c.printProblem(name, p)
		}
	}
	if nerr > 0 {
		return fmt.Errorf("%s: invalid PAIRL message in %s mode: %d error(s), %d warning(s)", name, c.mode(), nerr, len(ps)-nerr)
	}
	if !c.m.asJSON {
		fmt.Fprintf(c.m.Stdout, "%s: valid PAIRL v1.1 message in %s mode (%s, %d warning(s))\n", name, c.mode(), m.Hash(), len(ps))
	}
	return nil
}

// thread gives V4 an empty message set under --strict-refs, so that every
// @parent and @deps is reported as unresolvable: with one file, no other
// message is known. Without the flag V4 is skipped, even under
// `#rule strict_refs=true`, because resolution needs the store.
func (c *pairlCommand) thread() pairl.Thread {
	if !c.strictRefs {
		return nil
	}
	return pairl.NewMessageSet()
}

func pairlReport(name string, md pairl.Mode, m *pairl.Message, ps []pairl.Problem) validateReport {
	r := validateReport{File: name, Valid: !pairl.HasErrors(ps), Mode: md.String(), MID: m.MID(), Hash: m.Hash(),
		Problems: make([]problemJSON, len(ps))}
	for i, p := range ps {
		r.Problems[i] = problemJSON{Line: p.Line, Severity: p.Severity.String(), Code: p.Code,
			Description: p.Description, Fix: p.Fix}
	}
	return r
}

// printProblem writes `file:line: severity CODE: description` and the fix
// on an indented second line, as compilers do.
func (c *pairlCommand) printProblem(name string, p pairl.Problem) {
	where := name
	if p.Line > 0 {
		where = fmt.Sprintf("%s:%d", name, p.Line)
	}
	fmt.Fprintf(c.m.Stdout, "%s: %s %s: %s\n", where, p.Severity, p.Code, p.Description)
	if p.Fix != "" {
		fmt.Fprintf(c.m.Stdout, "\tfix: %s\n", p.Fix)
	}
}

// read reads and parses one message. It returns a nil message, and an
// error naming file:line, when the input cannot be read at all (not
// UTF-8, over a limit). Syntax findings are left to the caller.
func (c *pairlCommand) read(file string) (string, *pairl.Message, error) {
	name := inputName(file)
	b, err := readInput(c.m, file)
	if err != nil {
		return name, nil, err
	}
	m, _, err := pairl.Parse(b, c.mode())
	if m != nil {
		return name, m, nil
	}
	var pe *pairl.Error
	if errors.As(err, &pe) {
		return name, nil, problemError(name, pe.Problem)
	}
	return name, nil, fmt.Errorf("%s: %w", name, err)
}

// problemError turns a problem into `file:line: CODE: description; fix: …`.
func problemError(name string, p pairl.Problem) error {
	where := name
	if p.Line > 0 {
		where = fmt.Sprintf("%s:%d", name, p.Line)
	}
	s := fmt.Sprintf("%s: %s: %s", where, p.Code, p.Description)
	if p.Fix != "" {
		s += "; fix: " + p.Fix
	}
	return errors.New(s)
}

// readClean reads a message that canon, hash and render may work on: one
// whose syntax has no error in the chosen mode. The syntax errors are
// printed to stderr (stdout carries the result); V1-V8 are validate's.
func (c *pairlCommand) readClean(file string) (*pairl.Message, error) {
	name, m, err := c.read(file)
	if m == nil {
		return nil, err
	}
	ps := pairl.Validate(m, pairl.Options{Mode: c.mode()})
	nerr := 0
	for _, p := range syntaxOnly(ps) {
		if p.Severity == pairl.SeverityError {
			nerr++
			fmt.Fprintln(c.m.Stderr, problemError(name, p))
		}
	}
	if nerr > 0 {
		return nil, fmt.Errorf("%s: %d syntax error(s) in %s mode; run `aqlstore pairl validate` for the full report", name, nerr, c.mode())
	}
	return m, nil
}

// syntaxOnly drops the V1-V8 findings: a message whose @hash does not
// match must still canonicalize and hash, or nobody could fix it.
func syntaxOnly(ps []pairl.Problem) []pairl.Problem {
	var out []pairl.Problem
	for _, p := range ps {
		if len(p.Code) != 2 || p.Code[0] != 'V' {
			out = append(out, p)
		}
	}
	return out
}

func canonText(m *pairl.Message) string { return string(m.Canonical()) }

// print writes one function of the message to stdout.
func (c *pairlCommand) print(file string, fn func(*pairl.Message) string) error {
	m, err := c.readClean(file)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(c.m.Stdout, fn(m))
	return err
}

// hash prints the message's hash; with --json also the declared @hash.
func (c *pairlCommand) hash(file string) error {
	m, err := c.readClean(file)
	if err != nil {
		return err
	}
	if c.m.asJSON {
		declared := m.DeclaredHash()
		return c.m.printJSON(map[string]any{"hash": m.Hash(), "declared": declared, "matches": declared == m.Hash()})
	}
	_, err = fmt.Fprintln(c.m.Stdout, m.Hash())
	return err
}

// inputName is how messages name an input: the file, or "stdin" for "-".
func inputName(file string) string {
	if file == "-" {
		return "stdin"
	}
	return file
}
