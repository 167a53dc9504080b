package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/spf13/cobra"
)

// grantCommand lets another tenant read one of the --as tenant's
// documents (store.Grant); with revoke set it is the revoke command.
type grantCommand struct {
	m      *Main
	revoke bool
}

func (c *grantCommand) command() *cobra.Command {
	use, short := "grant CONTENT-ID DID", "Let tenant DID read one of your documents (act as its owner with --as)"
	if c.revoke {
		use, short = "revoke CONTENT-ID DID", "Stop tenant DID reading one of your documents (act as its owner with --as)"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  args(cobra.ExactArgs(2)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a[0], a[1]) },
	}
}

func (c *grantCommand) run(ctx context.Context, idText, grantee string) error {
	// "public" passes to the store, which says how to share with everyone.
	if grantee != store.Public {
		if err := canon.CheckDID(grantee); err != nil {
			return usageError{fmt.Errorf("grantee: %w", err)}
		}
	}
	s, id, err := openOwned(c.m, idText)
	if err != nil {
		return err
	}
	defer s.Close()
	op, f := "grant", s.Grant
	if c.revoke {
		op, f = "revoke", s.Revoke
	}
	if err := grantError(c.m, id, f(c.m.ctx(ctx), store.Ref{ID: id}, grantee)); err != nil {
		return err
	}
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"op": op, "content_id": id.String(), "owner": c.m.asDID, "grantee": grantee})
	}
	verb := "granted to"
	if c.revoke {
		verb = "revoked from"
	}
	_, err = fmt.Fprintf(c.m.Stdout, "%s %s %s\n", id, verb, grantee)
	return err
}

// grantsCommand lists the tenants one of the --as tenant's documents is
// granted to.
type grantsCommand struct{ m *Main }

func (c *grantsCommand) command() *cobra.Command {
	return &cobra.Command{
		Use:   "grants CONTENT-ID",
		Short: "List the tenants one of your documents is granted to (act as its owner with --as)",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a[0]) },
	}
}

func (c *grantsCommand) run(ctx context.Context, idText string) error {
	s, id, err := openOwned(c.m, idText)
	if err != nil {
		return err
	}
	defer s.Close()
	grantees, err := s.Grantees(c.m.ctx(ctx), store.Ref{ID: id})
	if err := grantError(c.m, id, err); err != nil {
		return err
	}
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"content_id": id.String(), "owner": c.m.asDID, "grantees": append([]string{}, grantees...)})
	}
	for _, g := range grantees {
		if _, err := fmt.Fprintln(c.m.Stdout, g); err != nil {
			return err
		}
	}
	return nil
}

// openOwned checks what every grant command needs before the store is
// opened, an owner (--as) and a content id, and opens the store.
func openOwned(m *Main, idText string) (*store.Store, canon.ContentID, error) {
	if m.asDID == "" {
		return nil, canon.ContentID{}, usageError{errors.New("give --as DID: grants are made by a document's owner, a " +
			"tenant (public documents are visible to every reader already)")}
	}
	id, err := canon.ParseContentID(idText)
	if err != nil {
		return nil, id, usageError{fmt.Errorf("CONTENT-ID: %w", err)}
	}
	s, err := m.open()
	return s, id, err
}

// grantError says what a not-found grant means: the document is not one
// of the --as tenant's own.
func grantError(m *Main, id canon.ContentID, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s has no document %s: grants name one of the owner's own documents "+
			"(aqlstore --as %s ls shows each document's owner)", m.asDID, id, m.asDID)
	}
	return err
}
