package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/spf13/cobra"
)

// explainCommand shows the plan of an intent and what evaluating it cost.
type explainCommand struct{ q queryCommand }

func (c *explainCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "explain INTENT.json|-",
		Short: "Show the plan for an intent: index lookups, cardinalities, exactness, time per node",
		Args:  args(cobra.ExactArgs(1)),
		RunE:  func(cmd *cobra.Command, a []string) error { return c.run(cmd.Context(), a[0]) },
	}
	cmd.Flags().StringVar(&c.q.at, "at", "", "evaluate at this RFC 3339 instant instead of now")
	cmd.Flags().StringSliceVar(&c.q.kinds, "kind", nil, "plan against these kinds instead of the category's")
	return cmd
}

func (c *explainCommand) run(ctx context.Context, file string) error {
	c.q.pageSize, c.q.rejected = 1<<30, -1
	o, err := c.q.options()
	if err != nil {
		return err
	}
	b, err := readInput(c.q.m, file)
	if err != nil {
		return err
	}
	in, err := aql.Parse(b, nil)
	if err != nil {
		return err
	}
	s, err := c.q.m.open()
	if err != nil {
		return err
	}
	defer s.Close()
	var plan *query.Plan
	o.Index, o.Explain = c.q.m.ix, func(p *query.Plan) { plan = p }
	start := time.Now()
	resp, err := query.Resolve(ctx, s, in, o)
	if err != nil {
		return err
	}
	took := time.Since(start)
	ws, err := query.Warnings(c.q.m.ix, in, plan, resp)
	if err != nil {
		return fmt.Errorf("check the intent's paths: %w", err)
	}
	plan.Annotate(ws)
	return c.print(plan, resp, ws, took)
}

// print shows the plan, a path's warning beside its leaf, and the
// warnings no leaf shows (the includes) after it.
func (c *explainCommand) print(plan *query.Plan, resp *query.Response, ws []query.Warning, took time.Duration) error {
	m := c.q.m
	if m.asJSON {
		warnings := make([]any, len(ws))
		for i, w := range ws {
			warnings[i] = map[string]any{"pointer": w.Pointer, "path": w.Path, "suggestions": w.Suggestions, "message": w.String()}
		}
		return m.printJSON(map[string]any{"plan": plan.Document(), "evaluated": resp.Evaluated,
			"accepted": len(resp.Candidates), "time_ns": took.Nanoseconds(), "warnings": warnings})
	}
	fmt.Fprint(m.Stdout, plan.String())
	fmt.Fprintf(m.Stdout, "eval.Check: %d evaluated, %d accepted, %d rejected; total %s\n",
		resp.Evaluated, len(resp.Candidates), resp.RejectedTotal, took.Round(time.Microsecond))
	for _, w := range ws {
		if strings.HasPrefix(w.Pointer, "/projection/") {
			fmt.Fprintln(m.Stdout, "warning:", w)
		}
	}
	return nil
}
