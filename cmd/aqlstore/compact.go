package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// compactCommand takes deleted documents' bytes off the disk: Store.Compact,
// then two more opens of the store. Pebble's MANIFEST, which records each
// sstable's first and last key, is an append-only log; a deleted key that
// once bounded an sstable stays in it until Pebble writes a new MANIFEST,
// which it does when a store is opened, keeping the one before. So after
// the second open neither file holds a key that Compact erased.
type compactCommand struct{ m *Main }

// compactReopens is how many opens after Compact leave no MANIFEST that
// was written before it.
const compactReopens = 2

func (c *compactCommand) command() *cobra.Command {
	return &cobra.Command{
		Use:   "compact",
		Short: "Erase deleted documents' bytes from disk (run it with the server stopped)",
		Long: "compact takes every deleted document's bytes off the disk: it compacts the store (Store.Compact), " +
			"then opens it twice more so that Pebble rewrites its MANIFEST, which can name a deleted key that " +
			"bounded an sstable. Another process must not have the store open.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
}

func (c *compactCommand) run(ctx context.Context) error {
	s, err := c.m.open()
	if err != nil {
		return err
	}
	if err := s.Compact(ctx); err != nil {
		s.Close()
		return fmt.Errorf("compact %s: %w", s.Dir(), err)
	}
	if err := s.Close(); err != nil {
		return err
	}
	for range compactReopens {
		if s, err = c.m.open(); err != nil {
			return err
		}
		if err := s.Close(); err != nil {
			return err
		}
	}
	if s, err = c.m.open(); err != nil {
		return err
	}
	defer s.Close()
	du, err := s.DiskUsage()
	if err != nil {
		return err
	}
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"compacted": true, "disk_bytes": du.Total})
	}
	_, err = fmt.Fprintf(c.m.Stdout, "compacted %s: %d bytes of live data on disk\n", s.Dir(), du.Total)
	return err
}
