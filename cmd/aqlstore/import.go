package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// importCommand stores a signed export's documents under the --as tenant,
// its owner (aqlstore.DB.Import).
type importCommand struct{ m *Main }

func (c *importCommand) command() *cobra.Command {
	return &cobra.Command{
		Use:   "import EXPORT.json|-",
		Short: "Store the documents of a signed export (from export or the server) under their owner (act as it with --as)",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a[0]) },
	}
}

func (c *importCommand) run(ctx context.Context, file string) error {
	b, err := readInput(c.m, file)
	if err != nil {
		return err
	}
	db, err := c.m.openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	ctx = c.m.ctx(ctx)
	rep, err := db.Import(ctx, b)
	if err != nil {
		return fmt.Errorf("import %s: %w", file, err)
	}
	owner := db.Principal(ctx)
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"owner": owner, "imported": len(rep.Refs), "migration_receipt": rep.Receipt})
	}
	_, err = fmt.Fprintf(c.m.Stdout, "imported %d documents for %s (migration receipt %d)\n", len(rep.Refs), owner, rep.Receipt)
	return err
}
