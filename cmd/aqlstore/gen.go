package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/spf13/cobra"
)

// genCommand streams a deterministic synthetic corpus as NDJSON.
type genCommand struct {
	m    *Main
	kind string
	n    int
	seed uint64
}

func (c *genCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gen",
		Short: "Write a deterministic synthetic corpus as NDJSON to stdout",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
	f := cmd.Flags()
	f.StringVar(&c.kind, "kind", "manifest", "document kind: "+strings.Join(corpus.Kinds(), ", "))
	f.IntVarP(&c.n, "n", "n", 1000, "number of documents")
	f.Uint64Var(&c.seed, "seed", 1, "seed; the same seed gives the same bytes")
	return cmd
}

func (c *genCommand) run(ctx context.Context) error {
	g, err := corpus.New(corpus.Config{Kind: c.kind, Seed: c.seed, N: c.n})
	if err != nil {
		return usageError{err}
	}
	w := bufio.NewWriterSize(c.m.Stdout, 1<<16)
	if err := g.WriteNDJSON(w); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	return w.Flush()
}
