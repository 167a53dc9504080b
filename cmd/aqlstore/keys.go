package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

// keysCommand shows (creating on first use) the store's signing key.
type keysCommand struct{ m *Main }

func (c *keysCommand) command() *cobra.Command {
	return &cobra.Command{
		Use:   "keys",
		Short: "Show the store's Ed25519 response-signing key and its did:key (created on first use)",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
}

func (c *keysCommand) run(context.Context) error {
	signer, err := loadSigner(c.m.dir)
	if err != nil {
		return err
	}
	if c.m.asJSON {
		return c.m.printJSON(map[string]any{"did": signer.DID(), "kid": signer.KeyID(), "key_file": keyPath(c.m.dir)})
	}
	fmt.Fprintf(c.m.Stdout, "did       %s\nkid       %s\nkey file  %s\n", signer.DID(), signer.KeyID(), keyPath(c.m.dir))
	return nil
}
