package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/spf13/cobra"
)

// queryCommand resolves an intent and prints the signed response.
type queryCommand struct {
	m        *Main
	at       string
	kinds    []string
	pageSize int
	cursor   string
	rejected int
	trust    string
	noIndex  bool
	server   string
	token    string
}

func (c *queryCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "query INTENT.json|-",
		Short: "Resolve an AQL intent: a table on a terminal, the signed IntentResponse with --json or in a pipe",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&c.at, "at", "", "evaluate at this RFC 3339 instant instead of now (old example intents stay runnable)")
	f.StringSliceVar(&c.kinds, "kind", nil, "resolve against these kinds instead of the category's")
	f.IntVar(&c.pageSize, "page-size", 100, "candidates per full_set page")
	f.StringVar(&c.cursor, "cursor", "", "continue a full_set response from its next_cursor")
	f.IntVar(&c.rejected, "max-rejected", query.DefaultMaxRejected, "list at most this many rejected candidates")
	f.StringVar(&c.trust, "trust", "", "trust file mapping issuer DIDs to keys (did:key issuers resolve without one)")
	f.StringVar(&c.server, "server", "", "post the intent to a running aqlstore server (its response signature is checked against its did.json)")
	f.StringVar(&c.token, "token", "", "bearer token for --server")
	f.BoolVar(&c.noIndex, "no-index", false, "check every document instead of planning with the index (same answer, slower)")
	return cmd
}

func (c *queryCommand) run(ctx context.Context, file string) error {
	if c.server != "" {
		b, err := readInput(c.m, file)
		if err != nil {
			return err
		}
		return c.m.queryRemote(ctx, c.server, c.token, b)
	}
	opts, err := c.options()
	if err != nil {
		return err
	}
	b, err := readInput(c.m, file)
	if err != nil {
		return err
	}
	in, err := aql.Parse(b, nil)
	if err == nil {
		err = c.resolve(ctx, in, opts)
	}
	if err != nil {
		return c.refuse(err, in, opts)
	}
	return nil
}

func (c *queryCommand) options() (*query.Options, error) {
	// --as reads as that tenant, as every other command does; an intent
	// whose signature verifies still reads as its issuer.
	o := &query.Options{PageSize: c.pageSize, Cursor: c.cursor, MaxRejected: c.rejected, Principal: c.m.asDID}
	if c.at != "" {
		t, ok := aql.ParseInstant(c.at)
		if !ok {
			return nil, usageError{fmt.Errorf("--at %q: want an RFC 3339 instant like 2026-05-04T00:00:00Z", c.at)}
		}
		o.At = t
	}
	for _, k := range c.kinds {
		kind, err := canon.ParseKind(k)
		if err != nil {
			return nil, usageError{err}
		}
		o.Kinds = append(o.Kinds, kind)
	}
	signer, err := loadSigner(c.m.dir)
	if err != nil {
		return nil, err
	}
	o.Signer = signer
	if c.trust != "" {
		keys, err := sign.LoadTrustFile(c.trust)
		if err != nil {
			return nil, err
		}
		o.Keys = keys
	}
	return o, nil
}

func (c *queryCommand) resolve(ctx context.Context, in *aql.Intent, o *query.Options) error {
	s, err := c.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	var plan *query.Plan
	if !c.noIndex {
		o.Index, o.Explain = c.m.ix, func(p *query.Plan) { plan = p }
	}
	resp, err := query.Resolve(ctx, s, in, o)
	if err != nil {
		return err
	}
	c.m.warn(query.Warnings(c.m.ix, in, plan, resp))
	if c.m.StdoutIsTerminal && !c.m.asJSON {
		return writeTable(c.m.Stdout, resp, in.Projection.Include)
	}
	fmt.Fprintf(c.m.Stderr, "%d candidates, %d rejected, %d evaluated\n", len(resp.Candidates), resp.RejectedTotal, resp.Evaluated)
	b, _ := resp.MarshalJSON()
	_, err = fmt.Fprintf(c.m.Stdout, "%s\n", b)
	return err
}

// warn prints the warnings about an intent's paths to stderr: the
// answer stands (exit 0), but an empty one may come from a typo.
func (m *Main) warn(ws []query.Warning, err error) {
	for _, w := range ws {
		fmt.Fprintln(m.Stderr, "warning:", w)
	}
	if err != nil {
		fmt.Fprintln(m.Stderr, "warning: checking the intent's paths:", err)
	}
}

// refuse prints the signed error document to stdout (R1) and returns the
// error for stderr and the exit code, with the problems of the document
// its message does not name already. On a terminal without --json the
// document is not printed: stderr lists the same problems.
func (c *queryCommand) refuse(err error, in *aql.Intent, o *query.Options) error {
	id := ""
	if in != nil {
		id = in.IntentID
	}
	at := o.At
	if at.IsZero() {
		at = time.Now()
	}
	doc, derr := query.ErrorDocument(o.Signer, err, id, at)
	if derr == nil && (!c.m.StdoutIsTerminal || c.m.asJSON) {
		fmt.Fprintf(c.m.Stdout, "%s\n", canon.AppendValue(nil, doc))
	}
	var more []string
	for _, p := range query.Problems(err) {
		if !strings.Contains(err.Error(), "at "+p.Pointer) {
			more = append(more, p.String())
		}
	}
	if len(more) > 0 {
		return fmt.Errorf("%w\n%s", err, strings.Join(more, "\n"))
	}
	return err
}

// readInput reads a file, or stdin for "-".
func readInput(m *Main, file string) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(m.Stdin)
	}
	return os.ReadFile(file)
}

// keyPath is where a store keeps its resolver signing key.
func keyPath(dir string) string { return filepath.Join(dir, "keys", "resolver.jwk") }

// loadSigner loads the store's signing key, creating it on first use.
func loadSigner(dir string) (*sign.Signer, error) {
	priv, _, err := sign.LoadOrCreateKey(keyPath(dir))
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	return sign.NewSigner(priv), nil
}
