package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// exportCommand writes the --as tenant's signed export (aqlstore.DB.Export),
// the form the server's GET /storage/export sends.
type exportCommand struct {
	m   *Main
	out string
}

func (c *exportCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write your documents and their receipts as a signed export (act as the tenant with --as)",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
	cmd.Flags().StringVarP(&c.out, "output", "o", "", "write to this file instead of stdout")
	return cmd
}

func (c *exportCommand) run(ctx context.Context) error {
	db, err := c.m.openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := db.Export(c.m.ctx(ctx))
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if c.out == "" {
		_, err = c.m.Stdout.Write(b)
		return err
	}
	// Written whole or not at all: a cut-short export must not look like one.
	tmp := c.out + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, c.out); err != nil {
		os.Remove(tmp)
		return err
	}
	fmt.Fprintf(c.m.Stderr, "exported to %s\n", c.out)
	return nil
}
