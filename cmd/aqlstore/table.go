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
	"github.com/aqlstore/aqlstore/query/aql"
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
		payload, _ := c.PayloadValue() // the resolver wrote it: it decodes
		row = append(row, cell(field(payload, p), cellWidth))
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

// summary is the last line: the counts and how to get the next page. A
// remote response does not say how many documents were evaluated
// (Evaluated < 0).
func summary(resp *query.Response) string {
	s := fmt.Sprintf("%d accepted, %d rejected", len(resp.Candidates), resp.RejectedTotal)
	if listed := len(resp.Rejected); listed < resp.RejectedTotal {
		s += fmt.Sprintf(" (%d listed; raise --max-rejected for more)", listed)
	}
	if resp.Evaluated >= 0 {
		s += fmt.Sprintf(", %d evaluated", resp.Evaluated)
	}
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

// remoteTable reads what the table shows from a server's signed response
// (already verified) and the intent's includes. A server's answer does not
// carry the candidates' costs or how many documents it evaluated; the
// rejected total is the listed count.
func remoteTable(body, intent []byte) (*query.Response, []*canon.Pointer, error) {
	v, err := canon.Decode(body, nil)
	if err != nil {
		return nil, nil, err
	}
	doc, _ := v.(map[string]any)
	resp := &query.Response{Evaluated: -1}
	for _, x := range asList(doc["candidates"]) {
		m, _ := x.(map[string]any)
		c := query.Candidate{CandidateID: asString(m["candidate_id"]), OverBudget: m["over_budget"] == true}
		c.Rank, _ = strconv.Atoi(string(asNumber(m["rank"])))
		c.Score = asNumber(m["score"])
		if p, ok := m["payload"].(map[string]any); ok {
			c.Payload = canon.AppendValue(nil, p)
		}
		resp.Candidates = append(resp.Candidates, c)
	}
	for _, x := range asList(doc["rejected"]) {
		m, _ := x.(map[string]any)
		rec, _ := m["decision_record"].(map[string]any)
		resp.Rejected = append(resp.Rejected, query.Rejection{CandidateID: asString(m["candidate_id"]),
			Record: query.DecisionRecord{Explanation: asString(rec["explanation"])}})
	}
	resp.RejectedTotal = len(resp.Rejected)
	resp.NextCursor = asString(doc["next_cursor"])
	in, err := aql.Parse(intent, nil)
	if err != nil {
		return resp, nil, nil // the server took it; show the candidates without projected columns
	}
	return resp, in.Projection.Include, nil
}

func asList(v any) []any          { l, _ := v.([]any); return l }
func asString(v any) string       { s, _ := v.(string); return s }
func asNumber(v any) canon.Number { n, _ := v.(canon.Number); return n }
