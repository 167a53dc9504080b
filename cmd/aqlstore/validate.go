package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/spf13/cobra"
)

// validateCommand checks an intent and lists every problem.
type validateCommand struct{ m *Main }

func (c *validateCommand) command() *cobra.Command {
	return &cobra.Command{
		Use:   "validate INTENT.json|-",
		Short: "Check an AQL intent: every problem, each with its JSON Pointer",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a[0]) },
	}
}

func (c *validateCommand) run(_ context.Context, file string) error {
	b, err := readInput(c.m, file)
	if err != nil {
		return err
	}
	in, err := aql.Parse(b, nil)
	var inv *aql.InvalidError
	if errors.As(err, &inv) {
		return c.report(file, inv)
	}
	if err != nil {
		return err
	}
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"valid": true, "intent_id": in.IntentID})
	}
	fmt.Fprintf(c.m.Stdout, "%s: valid (%s, category %s, valid %s to %s)\n", file, in.IntentID, in.Category,
		in.Validity.From.Format("2006-01-02T15:04:05Z07:00"), in.Validity.To.Format("2006-01-02T15:04:05Z07:00"))
	return nil
}

func (c *validateCommand) report(file string, inv *aql.InvalidError) error {
	if c.m.asJSON {
		problems := make([]map[string]string, len(inv.Problems))
		for i, p := range inv.Problems {
			problems[i] = map[string]string{"pointer": p.Pointer, "code": p.Code, "message": p.Message}
		}
		if err := c.m.printJSON(map[string]any{"valid": false, "problems": problems}); err != nil {
			return err
		}
	} else {
		for _, p := range inv.Problems {
			ptr := p.Pointer
			if ptr == "" {
				ptr = "/"
			}
			fmt.Fprintf(c.m.Stdout, "%s: at %s: %s (%s)\n", file, ptr, p.Message, p.Code)
		}
	}
	return fmt.Errorf("%s: %d problem(s) in the intent", file, len(inv.Problems))
}
