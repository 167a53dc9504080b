package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/spf13/cobra"
)

// lsCommand lists documents.
type lsCommand struct {
	m     *Main
	kind  string
	limit int
}

func (c *lsCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List documents (number, kind, content id, owner, natural key)",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
	cmd.Flags().StringVar(&c.kind, "kind", "", "only this kind")
	cmd.Flags().IntVar(&c.limit, "limit", 0, "at most this many (0: all)")
	return cmd
}

func (c *lsCommand) run(ctx context.Context) error {
	if c.limit < 0 {
		return usageError{fmt.Errorf("--limit %d: give a count, or 0 for all", c.limit)}
	}
	if c.kind != "" {
		if _, err := parseKindFlag(c.kind); err != nil {
			return err
		}
	}
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	tw := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	if !c.m.asJSON {
		fmt.Fprintln(tw, "NUM\tKIND\tID\tOWNER\tKEY")
	}
	n := 0
	for doc, err := range s.Scan(c.m.ctx(ctx), canon.Kind(c.kind)) {
		if err != nil {
			return err
		}
		if c.m.asJSON {
			out := refJSON(doc.Ref)
			out["natural_key"] = doc.NaturalKey
			if err := c.m.printJSON(out); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", doc.Num, doc.Kind, doc.ID, doc.Owner, doc.NaturalKey)
		}
		if n++; c.limit > 0 && n >= c.limit {
			break
		}
	}
	return tw.Flush()
}

// jsonRaw embeds already-encoded JSON in a printed value.
func jsonRaw(b []byte) json.RawMessage { return json.RawMessage(b) }
