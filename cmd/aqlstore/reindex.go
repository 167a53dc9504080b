package main

import (
	"context"
	"fmt"
	"time"

	"github.com/aqlstore/aqlstore/index"
	"github.com/spf13/cobra"
)

// reindexCommand rebuilds the index from the documents.
type reindexCommand struct {
	m     *Main
	batch int
}

func (c *reindexCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild every index from the documents (after an upgrade, or for a store written without one)",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
	cmd.Flags().IntVar(&c.batch, "batch", 5000, "documents per synced batch")
	return cmd
}

func (c *reindexCommand) run(ctx context.Context) error {
	if c.batch < 1 {
		return usageError{fmt.Errorf("--batch must be at least 1")}
	}
	start := time.Now()
	last := time.Now()
	err := index.Reindex(ctx, c.m.dir, nil, c.batch, func(done int) {
		if time.Since(last) > time.Second {
			fmt.Fprintf(c.m.Stderr, "reindexed %d documents\n", done)
			last = time.Now()
		}
	})
	if err != nil {
		return fmt.Errorf("reindex %s: %w", c.m.dir, err)
	}
	el := time.Since(start)
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"dir": c.m.dir, "reindexed": true, "seconds": el.Seconds()})
	}
	fmt.Fprintf(c.m.Stderr, "reindexed %s in %s\n", c.m.dir, el.Round(time.Millisecond))
	return nil
}

// checkCommand compares the index with what the documents imply.
type checkCommand struct{ m *Main }

func (c *checkCommand) command() *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Check that every index posting agrees with the documents",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
}

func (c *checkCommand) run(ctx context.Context) error {
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := index.Check(ctx, s)
	if err != nil {
		return err
	}
	if c.m.asJSON {
		if err := c.m.printJSON(map[string]any{"ok": rep.OK(), "documents": rep.Documents,
			"postings": rep.Postings, "problems": rep.Problems, "problem_count": rep.Count}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.m.Stdout, "checked %d documents, %d postings\n", rep.Documents, rep.Postings)
		for _, p := range rep.Problems {
			fmt.Fprintln(c.m.Stdout, "problem:", p)
		}
	}
	if !rep.OK() {
		return fmt.Errorf("index of %s disagrees with its documents in %d places: run `aqlstore reindex`", s.Dir(), rep.Count)
	}
	if !c.m.asJSON {
		fmt.Fprintln(c.m.Stdout, "ok")
	}
	return nil
}
