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
	damaged := make([]map[string]any, len(rep.Damaged))
	for i, d := range rep.Damaged {
		damaged[i] = map[string]any{"file": d.File, "first": d.First, "last": d.Last, "detail": d.Detail}
	}
	if c.m.asJSON {
		if err := c.m.printJSON(map[string]any{"ok": rep.OK(), "blobs": rep.Blobs, "documents": rep.Documents,
			"receipts": rep.Receipts, "problems": rep.Problems, "problem_count": rep.Count,
			"damaged": damaged}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.m.Stdout, "checked %d documents, %d blobs, %d receipts\n", rep.Documents, rep.Blobs, rep.Receipts)
		for _, p := range rep.Problems {
			fmt.Fprintln(c.m.Stdout, "problem:", p)
		}
		if more := rep.Count - len(rep.Problems); more > 0 {
			fmt.Fprintf(c.m.Stdout, "… and %d more problems\n", more)
		}
	}
	if len(rep.Damaged) > 0 {
		// Damaged files cannot be repaired in place: Pebble keeps no
		// second copy of a block.
		return fmt.Errorf("store %s does not verify: %d problems, %d damaged database files; restore the store from "+
			"a backup, or import an earlier export into a new store", s.Dir(), rep.Count, len(rep.Damaged))
	}
	if !rep.OK() {
		return fmt.Errorf("store %s does not verify: %d problems", s.Dir(), rep.Count)
	}
	if !c.m.asJSON {
		fmt.Fprintln(c.m.Stdout, "ok")
	}
	return nil
}
