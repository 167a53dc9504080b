package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/aqlstore/aqlstore/canon"

	"github.com/spf13/cobra"
)

// statsCommand prints counts and sizes.
type statsCommand struct{ m *Main }

func (c *statsCommand) command() *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Print document counts by kind, blob and disk bytes, receipts",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
}

func (c *statsCommand) run(ctx context.Context) error {
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	st, err := s.Stats(ctx)
	if err != nil {
		return err
	}
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"documents": st.Documents, "by_kind": st.ByKind, "blobs": st.Blobs,
			"blob_bytes": st.BlobBytes, "body_bytes": st.BodyBytes, "receipts": st.Receipts, "disk_bytes": st.DiskBytes})
	}
	w := c.m.Stdout
	fmt.Fprintf(w, "store       %s\n", s.Dir())
	fmt.Fprintf(w, "documents   %d\n", st.Documents)
	kinds := make([]string, 0, len(st.ByKind))
	for k := range st.ByKind {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "  %-10s %d\n", k, st.ByKind[canon.Kind(k)])
	}
	fmt.Fprintf(w, "blobs       %d (%d canonical bytes, %d stored)\n", st.Blobs, st.BodyBytes, st.BlobBytes)
	fmt.Fprintf(w, "receipts    %d\n", st.Receipts)
	fmt.Fprintf(w, "disk        %d bytes\n", st.DiskBytes)
	return nil
}
