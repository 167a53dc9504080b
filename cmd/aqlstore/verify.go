package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// verifyCommand re-hashes every blob and walks the receipt chain.
type verifyCommand struct{ m *Main }

func (c *verifyCommand) command() *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Re-hash every blob, check every document's keys and walk the receipt chain",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
}

func (c *verifyCommand) run(ctx context.Context) error {
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := s.Verify(ctx)
	if err != nil {
		return err
	}
	if c.m.asJSON {
		if err := c.m.printJSON(map[string]any{"ok": rep.OK(), "blobs": rep.Blobs, "documents": rep.Documents,
			"receipts": rep.Receipts, "problems": rep.Problems, "problem_count": rep.Count}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.m.Stdout, "checked %d documents, %d blobs, %d receipts\n", rep.Documents, rep.Blobs, rep.Receipts)
		for _, p := range rep.Problems {
			fmt.Fprintln(c.m.Stdout, "problem:", p)
		}
	}
	if !rep.OK() {
		return fmt.Errorf("store %s does not verify: %d problems", s.Dir(), rep.Count)
	}
	if !c.m.asJSON {
		fmt.Fprintln(c.m.Stdout, "ok")
	}
	return nil
}
