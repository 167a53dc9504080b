package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
)

// Widths of the table's shortened cells, in runes.
const (
	idWidth          = 40
	cellWidth        = 28
	explanationWidth = 100
)

// writeTable prints a response for people: the accepted candidates with
// rank, score, cost and the projected fields, then the rejected ones with
// why, then a summary. The signed bytes are what --json and a pipe get;
// this is a view of them, not a second answer.
func writeTable(w io.Writer, resp *query.Response, include []*canon.Pointer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(resp.Candidates) > 0 {
		head := []string{"RANK", "CANDIDATE", "SCORE", "COST"}
		for _, p := range include {
			head = append(head, cell(p.String(), cellWidth))
		}
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for i := range resp.Candidates {
			fmt.Fprintln(tw, strings.Join(candidateRow(&resp.Candidates[i], include), "\t"))
		}
	}
	if len(resp.Rejected) > 0 {
		if len(resp.Candidates) > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintln(tw, "REJECTED\tWHY")
		for _, r := range resp.Rejected {
			fmt.Fprintf(tw, "%s\t%s\n", cell(r.CandidateID, idWidth), cell(r.Record.Explanation, explanationWidth))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, summary(resp))
	return err
}

func candidateRow(c *query.Candidate, include []*canon.Pointer) []string {
	score, cost := "-", "-"
	if c.Score != "" {
		score = string(c.Score)
	}
	if k, ok := c.Cost(); ok {
		cost = strings.TrimSpace(k.Amount + " " + k.Currency)
	}
	if c.OverBudget {
		cost += " (over budget)"
	}
	row := []string{strconv.Itoa(c.Rank), cell(c.CandidateID, idWidth), cell(score, cellWidth), cell(cost, cellWidth)}
	for _, p := range include {
		row = append(row, cell(field(c.Payload, p), cellWidth))
	}
	return row
}

// field is the projected value at p: a string as it is, any other value
// as its JSON, "-" when the payload has none.
func field(payload map[string]any, p *canon.Pointer) string {
	var v any
	if p.HasWildcard() {
		all := p.ResolveAll(payload, nil)
		if len(all) == 0 {
			return "-"
		}
		v = all
	} else {
		var ok bool
		if v, ok = p.First(payload); !ok {
			return "-"
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	return string(canon.AppendValue(nil, v))
}

// summary is the last line: the counts and how to get the next page.
func summary(resp *query.Response) string {
	s := fmt.Sprintf("%d accepted, %d rejected", len(resp.Candidates), resp.RejectedTotal)
	if listed := len(resp.Rejected); listed < resp.RejectedTotal {
		s += fmt.Sprintf(" (%d listed; raise --max-rejected for more)", listed)
	}
	s += fmt.Sprintf(", %d evaluated", resp.Evaluated)
	if resp.NextCursor != "" {
		s += "; next page: --cursor " + resp.NextCursor
	}
	return s
}

// cell makes s safe and short for one table cell: control characters
// (which could move a terminal's cursor or break the columns) are
// escaped, and a value longer than width runes ends in "…".
func cell(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, r := range s {
		if n == width-1 && utf8.RuneCountInString(s[i:]) > 1 {
			b.WriteString("…")
			break
		}
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			esc := strconv.QuoteRune(r)
			b.WriteString(esc[1 : len(esc)-1])
		} else {
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}
