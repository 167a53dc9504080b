package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/spf13/cobra"
)

// getCommand prints one document's canonical bytes (--json: its JSON
// view, see getJSON).
type getCommand struct {
	m    *Main
	kind string
	key  string
}

func (c *getCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "get [CONTENT-ID]",
		Short: "Print a document by content id, or by --kind and --key (its natural key)",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a) },
	}
	cmd.Flags().StringVar(&c.kind, "kind", "", "kind of the natural key")
	cmd.Flags().StringVar(&c.key, "key", "", "natural key (with --kind)")
	return cmd
}

func (c *getCommand) run(ctx context.Context, a []string) error {
	if (len(a) == 1) == (c.key != "") || (c.key != "") != (c.kind != "") {
		return usageError{fmt.Errorf("give a content id, or --kind and --key")}
	}
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	ctx = c.m.ctx(ctx)
	var doc *store.Doc
	if len(a) == 1 {
		id, perr := canon.ParseContentID(a[0])
		if perr != nil {
			return usageError{perr}
		}
		doc, err = s.Get(ctx, store.Ref{ID: id})
	} else {
		doc, err = s.Lookup(ctx, canon.Kind(c.kind), c.key)
	}
	if err != nil {
		return err
	}
	if c.m.asJSON {
		return c.m.printJSON(getJSON(doc))
	}
	// The canonical bytes as stored; PAIRL text already ends with LF.
	if _, err = c.m.Stdout.Write(doc.Body); err == nil && !bytes.HasSuffix(doc.Body, []byte("\n")) {
		_, err = io.WriteString(c.m.Stdout, "\n")
	}
	return err
}

// getJSON is the --json form of a document: "document" is always JSON —
// the canonical bytes of a JSON kind, the JSON view of a text kind
// (PAIRL) — and a text kind's canonical text is in "text" as well.
func getJSON(doc *store.Doc) map[string]any {
	out := refJSON(doc.Ref)
	out["natural_key"] = doc.NaturalKey
	out["document"] = jsonRaw(doc.JSON())
	if doc.View != nil {
		out["text"] = string(doc.Body)
	}
	return out
}
