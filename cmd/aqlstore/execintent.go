package main

import (
	"errors"
	"fmt"

	"github.com/aqlstore/aqlstore/canon/execintent"
	"github.com/spf13/cobra"
)

// execintentCommand groups the standalone ExecutionIntent.v1 tools.
type execintentCommand struct{ m *Main }

func (c *execintentCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "execintent",
		Short: "Validate ExecutionIntent.v1 documents and verify their intentHash (no store needed)",
		Args:  cobra.ArbitraryArgs,
		RunE:  func(_ *cobra.Command, a []string) error { return subcommandMissing("execintent", "validate", a) },
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "validate FILE|-",
		Short: "Check an ExecutionIntent.v1 against its schema, recompute intentHash, check expiresAt ≥ createdAt",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(_ *cobra.Command, a []string) error { return c.validate(a[0]) },
	})
	return cmd
}

// intentCodes name the execintent sentinels in reports, with a fix each.
var intentCodes = []struct {
	err       error
	code, fix string
}{
	{execintent.ErrSyntax, "SYNTAX", "write one strict JSON object: UTF-8, no duplicate member names"},
	{execintent.ErrSchema, "SCHEMA", "follow ExecutionIntent.v1.schema.json at the pointer"},
	{execintent.ErrInvalid, "INVALID", "keep key parts free of U+0000 and integers within 2^53-1"},
	{execintent.ErrHashMismatch, "HASH_MISMATCH", "reseal: intentHash = lowercase hex sha256 of the RFC 8785 form without intentHash"},
	{execintent.ErrExpiry, "EXPIRY", "set expiresAt at or after createdAt"},
}

func intentCode(e *execintent.Error) (code, fix string) {
	for _, c := range intentCodes {
		if errors.Is(e, c.err) {
			return c.code, c.fix
		}
	}
	return "INVALID", ""
}

func (c *execintentCommand) validate(file string) error {
	name := inputName(file)
	b, err := readInput(c.m, file)
	if err != nil {
		return err
	}
	in, err := execintent.Parse(b, nil)
	var list execintent.ErrorList
	if err != nil && !errors.As(err, &list) {
		return fmt.Errorf("%s: %w", name, err)
	}
	if list != nil {
		return c.report(name, b, list)
	}
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"file": name, "valid": true, "intent_id": in.IntentID,
			"intent_hash": in.IntentHash, "problems": []any{}})
	}
	_, err = fmt.Fprintf(c.m.Stdout, "%s: valid ExecutionIntent.v1 (intentId %s, intentHash %s)\n", name, in.IntentID, in.IntentHash)
	return err
}

func (c *execintentCommand) report(name string, src []byte, list execintent.ErrorList) error {
	loc := newLocator(src)
	if c.m.asJSON {
		ps := make([]map[string]any, len(list))
		for i, e := range list {
			code, fix := intentCode(e)
			ps[i] = map[string]any{"line": loc.line(e.Pointer), "code": code, "pointer": e.Pointer,
				"message": e.Message, "fix": fix}
		}
		if err := c.m.printJSON(map[string]any{"file": name, "valid": false, "problems": ps}); err != nil {
			return err
		}
	} else {
		for _, e := range list {
			code, fix := intentCode(e)
			printPointerProblem(c.m, name, loc.line(e.Pointer), code, e.Pointer, e.Message, fix)
		}
	}
	first, _ := intentCode(list[0])
	return fmt.Errorf("%s: invalid ExecutionIntent.v1: %s, %d problem(s)", name, first, len(list))
}
