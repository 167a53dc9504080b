package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// traceCommand lists the documents of an intent's traceability chain
// (RFC 0020 Appendix B.2).
type traceCommand struct{ m *Main }

func (c *traceCommand) command() *cobra.Command {
	return &cobra.Command{
		Use: "trace INTENT_ID",
		Short: "List the stored documents that carry INTENT_ID: the AQL intent, payment sessions, " +
			"settlement confirmations, receipts whose action_id is it (RFC 0020 B.2)",
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a[0]) },
	}
}

func (c *traceCommand) run(ctx context.Context, intentID string) error {
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	entries, err := s.Trace(c.m.ctx(ctx), intentID)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return fmt.Errorf("trace %s: no stored document carries this intent_id", intentID)
	}
	for _, e := range entries {
		if c.m.asJSON {
			out := refJSON(e.Doc.Ref)
			out["role"] = e.Role
			out["natural_key"] = e.Doc.NaturalKey
			if err := c.m.printJSON(out); err != nil {
				return err
			}
			continue
		}
		key := e.Doc.NaturalKey
		if key == "" {
			key = "-"
		}
		fmt.Fprintf(c.m.Stdout, "%-24s %-10s %s %s\n", e.Role, e.Doc.Kind, e.Doc.ID, key)
	}
	return nil
}
