package main

import (
	"context"
	"fmt"

	"github.com/aqlstore/aqlstore/index"
	"github.com/spf13/cobra"
)

// initCommand creates an empty store.
type initCommand struct {
	m         *Main
	textPaths []string
}

func (c *initCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create an empty store in --dir (opening an existing one is harmless)",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
	cmd.Flags().StringSliceVar(&c.textPaths, "text-paths", nil, "JSON Pointers whose strings get trigram postings (see `aqlstore index`; default none)")
	return cmd
}

func (c *initCommand) run(ctx context.Context) error {
	if c.textPaths != nil {
		if err := c.m.configureIndex(ctx, index.Config{TextPaths: c.textPaths}, 5000); err != nil {
			return err
		}
	}
	s, err := c.m.open()
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"dir": c.m.dir, "ready": true})
	}
	fmt.Fprintf(c.m.Stderr, "store ready in %s\n", c.m.dir)
	return nil
}
