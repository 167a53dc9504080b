package main

import (
	"strings"
	"testing"
)

func TestReadDocsLines(t *testing.T) {
	cases := []struct {
		name, in string
		lines    []int
	}{
		{"ndjson", "{\"a\":1}\n{\"b\":\n 2}\n\n{\"c\":3}\n{\"d\":\"\xff\"}\n", []int{1, 2, 5, 6}},
		{"array", "[\n {\"a\":1},\n {\"b\":2}\n]\n", []int{2, 3}},
		{"single pretty", "\n\n{\n  \"a\": 1\n}\n", []int{3}},
	}
	for _, c := range cases {
		var got []int
		_, err := readDocs(strings.NewReader(c.in), c.name, func(d *rawDoc) error {
			got = append(got, d.line)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(got) != len(c.lines) {
			t.Fatalf("%s: lines %v, want %v", c.name, got, c.lines)
		}
		for i := range got {
			if got[i] != c.lines[i] {
				t.Errorf("%s: lines %v, want %v", c.name, got, c.lines)
				break
			}
		}
	}
}
