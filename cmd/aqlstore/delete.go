package main

import (
	"context"
	"fmt"

	"github.com/aqlstore/aqlstore/store"
	"github.com/spf13/cobra"
)

// deleteCommand removes one of the --as principal's documents, with a
// receipt (store.Delete).
type deleteCommand struct {
	m *Main
	targetFlags
}

func (c *deleteCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete [CONTENT-ID]",
		Short: "Delete one of your documents (act as its owner with --as), by content id or by --kind and --key",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a) },
	}
	c.targetFlags.add(cmd)
	return cmd
}

func (c *deleteCommand) run(ctx context.Context, a []string) error {
	t, err := c.target(a)
	if err != nil {
		return err
	}
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	ctx = c.m.ctx(ctx)
	owner := store.Principal(ctx)
	ref := store.Ref{ID: t.id, Owner: owner}
	if t.kind != "" {
		doc, err := s.Lookup(ctx, t.kind, t.key)
		if err != nil {
			return c.m.notFound(err, t)
		}
		if doc.Owner != owner {
			return fmt.Errorf("%s is %s's, not %s's: a document is deleted by its owner (--as %s)", t, doc.Owner, owner, doc.Owner)
		}
		ref = doc.Ref
	} else if doc, err := s.Get(ctx, ref); err == nil && doc.Owner != owner {
		return fmt.Errorf("%s is %s's, not %s's: a document is deleted by its owner (--as %s)", t, doc.Owner, owner, doc.Owner)
	} else if err == nil {
		ref = doc.Ref
	}
	if err := s.Delete(ctx, ref); err != nil {
		return c.m.notFound(err, t)
	}
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"op": "delete", "id": ref.ID.String(), "kind": ref.Kind, "owner": owner})
	}
	_, err = fmt.Fprintf(c.m.Stdout, "deleted %s (%s, owner %s)\n", ref.ID, ref.Kind, owner)
	return err
}
