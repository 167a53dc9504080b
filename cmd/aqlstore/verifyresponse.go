package main

import (
	"context"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/spf13/cobra"
)

// verifyResponseCommand checks a response's signature.
type verifyResponseCommand struct {
	m   *Main
	key string
}

func (c *verifyResponseCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify-response RESPONSE.json|-",
		Short: "Check a signed response (or error document) against the resolver's did:key",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a[0]) },
	}
	cmd.Flags().StringVar(&c.key, "key", "", "the resolver's did:key (default: the response's resolver_did)")
	return cmd
}

func (c *verifyResponseCommand) run(_ context.Context, file string) error {
	b, err := readInput(c.m, file)
	if err != nil {
		return err
	}
	// A response holds many documents' payloads: the path limits are
	// for one document bound for an index.
	lim := canon.DefaultLimits().WithoutPathLimits()
	v, err := canon.Decode(b, &lim)
	if err != nil {
		return err
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: not a JSON object", file)
	}
	did := c.key
	if did == "" {
		did, _ = doc["resolver_did"].(string)
	}
	pub, err := sign.ParseDIDKey(did)
	if err != nil {
		return fmt.Errorf("%s: resolver key %q: %w (give --key did:key:…)", file, did, err)
	}
	if err := sign.Verify(doc, pub); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"ok": true, "resolver_did": did})
	}
	fmt.Fprintf(c.m.Stdout, "ok: signed by %s\n", did)
	return nil
}
