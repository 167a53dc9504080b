package pairl

import (
	"fmt"
	"strings"
)

// Columnar blocks (PAIRL v1.5) are read in loose mode because it is cheap:
//
//	#evid[claim,src,conf]
//	"LLM costs decreased 60% in 2025" s1 0.85
//
// Each row becomes an ordinary record (`#evid claim="…" src=s1 conf=0.85`),
// which is also how v1.6 canonicalizes them, so both forms hash the same. A
// block with any bad row is kept verbatim as opaque lines instead, so no
// data is silently lost and a second reading finds the same block.

// block is an open columnar block.
type block struct {
	tag    string
	cols   []string
	line   int
	header string
	rows   []Record // expanded rows
	raw    []Record // the block's lines, verbatim
	bad    bool
}

// startBlock opens a block from its header line `#tag[c1,c2,…]`.
func (p *parser) startBlock(text string, line int, tag, rest string) {
	b := &block{tag: tag, line: line, header: text}
	b.raw = append(b.raw, Record{Type: TypeOpaque, Line: line, Raw: text})
	p.block = b
	p.found.add(soft, line, CodeLater, "columnar block #"+tag+"[…] is PAIRL v1.5, not v1.1",
		"write one `#"+tag+" key=value …` record per row")
	if why := b.parseColumns(rest); why != "" {
		b.fail(p, line, why, "fix the column list")
	}
}

// parseColumns reads `[c1,c2,…]` and returns why it is malformed, or "".
func (b *block) parseColumns(rest string) string {
	inner, ok := strings.CutSuffix(rest[1:], "]") // rest starts with '['
	if !ok {
		return "column list is not closed by ] at the end of the line"
	}
	if b.tag == "fact" || b.tag == "ref" {
		return "columnar form is not allowed for #" + b.tag + " (its key is data)"
	}
	for _, c := range strings.Split(inner, ",") {
		c = strings.Trim(c, " \t")
		if !isIdent(c) || contains(b.cols, c) {
			return fmt.Sprintf("bad or repeated column name %q", c)
		}
		b.cols = append(b.cols, c)
	}
	return ""
}

// fail marks the block unreadable; malformed data is an error in both
// modes, because none of the block's records can be recovered.
func (b *block) fail(p *parser, line int, why, fix string) {
	b.bad = true
	p.found.add(hard, line, CodeRecord, "columnar block #"+b.tag+": "+why, fix)
}

// row reads one row of the open block.
func (b *block) row(p *parser, text string, line int, open bool) {
	b.raw = append(b.raw, Record{Type: TypeOpaque, Line: line, Raw: text})
	if b.bad {
		return
	}
	if open {
		b.fail(p, line, "unterminated quoted string", `close the quote; only \" is escaped (§7.2)`)
		return
	}
	toks, err := tokenize(text, false)
	if err != nil {
		b.fail(p, line, err.Error(), "fix the row")
		return
	}
	for i := range toks {
		toks[i] = asTag(toks[i])
	}
	toks, tags, rid, hasRID := peelTags(toks)
	if len(toks) != len(b.cols) {
		b.fail(p, line, fmt.Sprintf("row has %d fields, expected %d", len(toks), len(b.cols)),
			"give one value per column, quoting values with spaces")
		return
	}
	b.rows = append(b.rows, b.record(p, toks, tags, rid, hasRID, line))
}

// asTag marks an unquoted `@name=value` row token as a trailing tag
// candidate; rows are tokenized without '=' splitting.
func asTag(t token) token {
	s := t.Value.Text
	eq := strings.IndexByte(s, '=')
	if t.Value.Quoted || len(s) < 3 || s[0] != '@' || eq < 2 || eq == len(s)-1 {
		return t
	}
	return token{Field: Field{Key: s[:eq], Value: Value{Text: s[eq+1:]}}, tag: true}
}

// record builds the expanded record of one row. Its findings are recorded
// now, with the row's line; they stand even if a later row fails the block.
func (b *block) record(p *parser, toks []token, tags []Field, rid string, hasRID bool, line int) Record {
	r := Record{Type: typeOfTag(b.tag), Line: line, Name: b.tag, Tags: tags, Later: true}
	for i, t := range toks {
		r.Fields = append(r.Fields, Field{Key: b.cols[i], Value: t.Value})
	}
	p.setRID(&r, rid, hasRID)
	p.checkTags(&r)
	p.checkFields(&r)
	return r
}

// endBlock closes the open block, adding its records.
func (p *parser) endBlock() {
	b := p.block
	if b == nil {
		return
	}
	p.block = nil
	recs := b.rows
	if b.bad {
		recs = b.raw
		recs[len(recs)-1].blockEnd = true
	}
	for _, r := range recs {
		p.add(r)
	}
}
