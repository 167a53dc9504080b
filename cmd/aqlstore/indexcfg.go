package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/index"
	"github.com/spf13/cobra"
)

// indexCommand shows or changes the index configuration: which paths get
// trigram postings.
type indexCommand struct {
	m         *Main
	textPaths []string
	clear     bool
	batch     int
}

func (c *indexCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Show the index configuration, or change its text paths (and reindex)",
		Long: `Without flags, index prints the store's text paths: the paths whose strings
get trigram postings, so that contains and matches there are narrowed by the
index. Elsewhere those operators read the path's value dictionary (short
strings) or check every document with the path. The default is none.

--text-paths replaces the list and rebuilds the index under it (the store
must not be open elsewhere); --clear-text-paths empties it.`,
		Example: "  aqlstore index --text-paths /description,/capabilities/*/summary",
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
	cmd.Flags().StringSliceVar(&c.textPaths, "text-paths", nil, "JSON Pointers whose strings get trigram postings (replaces the list, reindexes)")
	cmd.Flags().BoolVar(&c.clear, "clear-text-paths", false, "remove every text path (reindexes)")
	cmd.Flags().IntVar(&c.batch, "batch", 5000, "documents per synced batch of the reindex")
	return cmd
}

func (c *indexCommand) run(ctx context.Context) error {
	if c.batch < 1 {
		return usageError{fmt.Errorf("--batch must be at least 1")}
	}
	if c.clear && len(c.textPaths) > 0 {
		return usageError{fmt.Errorf("give --text-paths or --clear-text-paths, not both")}
	}
	if !c.clear && len(c.textPaths) == 0 {
		return c.show()
	}
	return c.m.configureIndex(ctx, index.Config{TextPaths: c.textPaths}, c.batch)
}

func (c *indexCommand) show() error {
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	cfg := c.m.ix.Config()
	if c.m.asJSON {
		if cfg.TextPaths == nil {
			cfg.TextPaths = []string{}
		}
		return c.m.printJSON(cfg)
	}
	if len(cfg.TextPaths) == 0 {
		fmt.Fprintln(c.m.Stdout, "text paths: none (contains and matches read value dictionaries or check documents; set some with --text-paths)")
		return nil
	}
	fmt.Fprintln(c.m.Stdout, "text paths:", strings.Join(cfg.TextPaths, ", "))
	return nil
}

// configureIndex sets the store's index configuration, reindexing when
// it changes; the store is created first if it is not there.
func (m *Main) configureIndex(ctx context.Context, cfg index.Config, batch int) error {
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	s, err := m.open()
	if err != nil {
		return err
	}
	old := m.ix.Config()
	if err := s.Close(); err != nil {
		return err
	}
	if slices.Equal(old.TextPaths, cfg.TextPaths) {
		fmt.Fprintf(m.Stderr, "text paths unchanged: %s\n", describeTextPaths(cfg))
		return nil
	}
	start, last := time.Now(), time.Now()
	err = index.Configure(ctx, m.dir, nil, cfg, batch, func(done int) {
		if time.Since(last) > time.Second {
			fmt.Fprintf(m.Stderr, "reindexed %d documents\n", done)
			last = time.Now()
		}
	})
	if err != nil {
		return fmt.Errorf("set text paths of %s: %w", m.dir, err)
	}
	fmt.Fprintf(m.Stderr, "text paths: %s; reindexed %s in %s\n", describeTextPaths(cfg), m.dir, time.Since(start).Round(time.Millisecond))
	return nil
}

func describeTextPaths(cfg index.Config) string {
	if len(cfg.TextPaths) == 0 {
		return "none"
	}
	return strings.Join(cfg.TextPaths, ", ")
}
