package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/spf13/cobra"
)

// getCommand prints one document's canonical bytes (--json: its JSON
// view, see getJSON).
type getCommand struct {
	m *Main
	targetFlags
}

func (c *getCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "get [CONTENT-ID]",
		Short: "Print a document by content id, or by --kind and --key (its natural key)",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a) },
	}
	c.targetFlags.add(cmd)
	return cmd
}

func (c *getCommand) run(ctx context.Context, a []string) error {
	target, err := c.target(a)
	if err != nil {
		return err
	}
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	ctx = c.m.ctx(ctx)
	var doc *store.StoredDoc
	if target.kind == "" {
		doc, err = s.Get(ctx, store.Ref{ID: target.id})
	} else {
		doc, err = s.Lookup(ctx, target.kind, target.key)
	}
	if err != nil {
		return c.m.notFound(err, target)
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
func getJSON(doc *store.StoredDoc) map[string]any {
	out := refJSON(doc.Ref)
	out["natural_key"] = doc.NaturalKey
	out["document"] = jsonRaw(doc.JSON())
	if doc.View != nil {
		out["text"] = string(doc.Body)
	}
	return out
}

// target is the document a command names: a content id, or a kind and
// natural key.
type target struct {
	id   canon.ContentID
	kind canon.Kind // "" when named by id
	key  string
}

// targetFlags are the --kind and --key of a command that names one
// document, by content id or by natural key (get, delete).
type targetFlags struct {
	kind string
	key  string
}

func (f *targetFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.kind, "kind", "", "kind of the natural key")
	cmd.Flags().StringVar(&f.key, "key", "", "natural key (with --kind)")
}

// target reads the document the command names (parseTarget).
func (f *targetFlags) target(a []string) (target, error) { return parseTarget(a, f.kind, f.key) }

// parseTarget reads a command's CONTENT-ID argument or its --kind and
// --key; a wrong combination or an unknown kind is a usage error.
func parseTarget(a []string, kind, key string) (target, error) {
	if (len(a) == 1) == (key != "") || (key != "") != (kind != "") {
		return target{}, usageError{fmt.Errorf("give a content id, or --kind and --key")}
	}
	if len(a) == 1 {
		id, err := canon.ParseContentID(a[0])
		if err != nil {
			return target{}, usageError{fmt.Errorf("CONTENT-ID: %w", err)}
		}
		return target{id: id}, nil
	}
	k, err := parseKindFlag(kind)
	if err != nil {
		return target{}, err
	}
	return target{kind: k, key: key}, nil
}

// String names the target as a message does.
func (t target) String() string {
	if t.kind == "" {
		return "document " + t.id.String()
	}
	return fmt.Sprintf("%s with key %q", t.kind, t.key)
}

// notFound turns store.ErrNotFound into what a person needs: which
// document, read as whom, and how to read as someone else. Other errors
// pass through.
func (m *Main) notFound(err error, t target) error {
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	reader := m.asDID
	if reader == "" {
		reader = store.Public
	}
	hint := "it is not stored, or is a tenant's: read as its owner with --as DID"
	if reader != store.Public {
		hint = "it is not stored, or belongs to another tenant that has not granted it to " + reader
	}
	ls := "aqlstore ls"
	if reader != store.Public {
		ls = "aqlstore --as " + reader + " ls"
	}
	if t.kind != "" {
		ls += " --kind " + string(t.kind)
	}
	return fmt.Errorf("%w: no %s visible to %s (%s; `%s` lists what %s may read)", store.ErrNotFound, t, reader, hint, ls, reader)
}
