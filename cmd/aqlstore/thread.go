package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/aqlstore/aqlstore/canon/pairl"
	"github.com/aqlstore/aqlstore/store"
	"github.com/spf13/cobra"
)

// threadCommand prints the PAIRL thread holding a message as a tree.
type threadCommand struct{ m *Main }

func (c *threadCommand) command() *cobra.Command {
	return &cobra.Command{
		Use:   "thread MID",
		Short: "Print the PAIRL thread holding message MID (ref:msg:… or its id) as a tree of @parent replies",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a[0]) },
	}
}

func (c *threadCommand) run(ctx context.Context, mid string) error {
	if !strings.HasPrefix(mid, "ref:msg:") {
		mid = "ref:msg:" + mid
	}
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	tree, err := s.Thread(c.m.ctx(ctx), mid)
	if err != nil {
		return fmt.Errorf("thread %s: %w", mid, err)
	}
	if c.m.asJSON {
		return c.m.printJSON(threadJSON(tree))
	}
	printThread(c.m.Stdout, tree, "", "", mid)
	return nil
}

// printThread draws n and its replies with box-drawing branches; the
// message asked for is marked with '*'.
func printThread(w io.Writer, n *store.ThreadNode, lead, childLead, asked string) {
	fmt.Fprintf(w, "%s%s\n", lead, threadLine(n, asked))
	for i, k := range n.Children {
		branch, next := "├── ", "│   "
		if i == len(n.Children)-1 {
			branch, next = "└── ", "    "
		}
		printThread(w, k, childLead+branch, childLead+next, asked)
	}
}

func threadLine(n *store.ThreadNode, asked string) string {
	var b strings.Builder
	b.WriteString(n.MID)
	if n.MID == asked {
		b.WriteString(" *")
	}
	if n.Message != nil {
		fmt.Fprintf(&b, "  %s", n.Message.TS())
		if amt, ok := n.Message.Budget(); ok {
			fmt.Fprintf(&b, "  budget %s%s", amt.Value, amt.Unit)
		}
		for _, r := range n.Message.Records {
			if r.Type == pairl.TypeIntent {
				fmt.Fprintf(&b, "  %s{}", r.Name)
				break
			}
		}
	}
	if len(n.Deps) > 0 {
		fmt.Fprintf(&b, "  deps: %s", strings.Join(n.Deps, ", "))
	}
	if n.Repeat {
		b.WriteString("  (cycle: shown above)")
	}
	return b.String()
}

func threadJSON(n *store.ThreadNode) map[string]any {
	out := map[string]any{"mid": n.MID}
	if n.Doc != nil {
		out["id"] = n.Doc.ID.String()
		out["owner"] = n.Doc.Owner
		out["ts"] = n.Message.TS()
	}
	if len(n.Deps) > 0 {
		out["deps"] = n.Deps
	}
	if n.Repeat {
		out["cycle"] = true
	}
	kids := make([]any, 0, len(n.Children))
	for _, k := range n.Children {
		kids = append(kids, threadJSON(k))
	}
	out["replies"] = kids
	return out
}
