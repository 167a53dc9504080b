package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/query/aql"
)

// regexTable is testdata/regex/table.json, written by node.mjs beside it
// from node's RegExp: every pattern's verdict on every string, "1" for a
// match, "0" for none, or "SyntaxError" for the whole row.
type regexTable struct {
	Source   string            `json:"source"`
	Strings  []json.RawMessage `json:"strings"`
	Patterns []struct {
		Pattern  json.RawMessage `json:"pattern"`
		Verdicts string          `json:"verdicts"`
	} `json:"patterns"`
}

// TestRegexAgreesWithNode checks matches against JavaScript's RegExp
// without flags: the same patterns refused, the same verdicts on strings
// of UTF-16 code units, lone surrogates included. It reads the committed
// table and needs no node.
func TestRegexAgreesWithNode(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "regex", "table.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tab regexTable
	if err := json.Unmarshal(raw, &tab); err != nil {
		t.Fatal(err)
	}
	if len(tab.Patterns) < 40 || len(tab.Strings) < 40 {
		t.Fatalf("table has %d patterns × %d strings; want at least 40 × 40", len(tab.Patterns), len(tab.Strings))
	}
	strs := make([][]uint16, len(tab.Strings))
	for i, s := range tab.Strings {
		if strs[i], err = jsonUnits(s); err != nil {
			t.Fatalf("string %d: %v", i, err)
		}
	}
	for _, row := range tab.Patterns {
		units, err := jsonUnits(row.Pattern)
		if err != nil {
			t.Fatalf("pattern %s: %v", row.Pattern, err)
		}
		pattern, ok := unitsString(units)
		if !ok {
			t.Fatalf("pattern %s holds a lone surrogate, which an intent cannot carry; write it as a \\u escape", row.Pattern)
		}
		t.Run(fmt.Sprintf("%q", pattern), func(t *testing.T) {
			checkRegexRow(t, pattern, row.Verdicts, strs)
		})
	}
}

func checkRegexRow(t *testing.T, pattern, verdicts string, strs [][]uint16) {
	re, err := aql.CompileRegex(pattern)
	if verdicts == "SyntaxError" {
		if err == nil {
			t.Fatalf("compiled; node's RegExp throws SyntaxError")
		}
		return
	}
	if err != nil {
		t.Fatalf("refused (%v); node's RegExp accepts it", err)
	}
	if len(verdicts) != len(strs) {
		t.Fatalf("%d verdicts for %d strings", len(verdicts), len(strs))
	}
	re.MatchTimeout = defaultMatchTimeout
	for i, s := range strs {
		got, err := aql.MatchUnits(re, s)
		if err != nil {
			t.Errorf("on %s: %v", quoteUnits(s), err)
			continue
		}
		if want := verdicts[i] == '1'; got != want {
			t.Errorf("on %s: matched %v, node %v", quoteUnits(s), got, want)
		}
		// Where the string is valid UTF-16, as a stored string is, the
		// matcher the evaluator calls must agree too.
		if str, ok := unitsString(s); ok {
			if got2, err := aql.MatchString(re, str); err != nil || got2 != got {
				t.Errorf("on %s: MatchString %v, %v; MatchUnits %v", quoteUnits(s), got2, err, got)
			}
		}
	}
}

// jsonUnits decodes a JSON string into UTF-16 code units, keeping the
// lone surrogates that encoding/json would turn into U+FFFD.
func jsonUnits(raw json.RawMessage) ([]uint16, error) {
	s := string(raw)
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return nil, fmt.Errorf("not a JSON string: %s", s)
	}
	s = s[1 : len(s)-1]
	var out []uint16
	for i := 0; i < len(s); {
		if s[i] == '\\' && i+6 <= len(s) && s[i+1] == 'u' {
			v, err := strconv.ParseUint(s[i+2:i+6], 16, 16)
			if err != nil {
				return nil, err
			}
			out, i = append(out, uint16(v)), i+6
			continue
		}
		if s[i] == '\\' {
			end := i + 2
			if end > len(s) {
				return nil, fmt.Errorf("dangling backslash")
			}
			var dec string
			if err := json.Unmarshal([]byte(`"`+s[i:end]+`"`), &dec); err != nil {
				return nil, err
			}
			out, i = append(out, uint16(dec[0])), end
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		out, i = utf16.AppendRune(out, r), i+w
	}
	return out, nil
}

// unitsString returns the string whose UTF-16 form is units, or false
// when units holds a lone surrogate.
func unitsString(units []uint16) (string, bool) {
	rs := utf16.Decode(units)
	back := utf16.Encode(rs)
	if len(back) != len(units) {
		return "", false
	}
	for i := range back {
		if back[i] != units[i] {
			return "", false
		}
	}
	return string(rs), true
}

func quoteUnits(units []uint16) string {
	if s, ok := unitsString(units); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%U", units)
}
