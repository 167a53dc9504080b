package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// initCommand creates an empty store.
type initCommand struct{ m *Main }

func (c *initCommand) command() *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create an empty store in --dir (opening an existing one is harmless)",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
}

func (c *initCommand) run(context.Context) error {
	s, err := c.m.open()
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	fmt.Fprintf(c.m.Stderr, "store ready in %s\n", c.m.dir)
	return nil
}
