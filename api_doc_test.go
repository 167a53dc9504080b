package aqlstore_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parsePackage parses the root package's files (tests included) in the
// current directory.
func parsePackage(t *testing.T) (*token.FileSet, []*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

// Every exported method of DB has a runnable example with output, so the
// documentation shows each one working.
func TestEveryMethodHasExample(t *testing.T) {
	_, files := parsePackage(t)
	methods := map[string]bool{}
	examples := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if fn.Recv != nil && fn.Name.IsExported() && recvName(fn) == "DB" && f.Name.Name == "aqlstore" {
				methods[fn.Name.Name] = true
			}
			if strings.HasPrefix(fn.Name.Name, "ExampleDB_") && hasOutput(f, fn) {
				examples[strings.TrimPrefix(fn.Name.Name, "ExampleDB_")] = true
			}
		}
	}
	if len(methods) < 5 {
		t.Fatalf("found only %d methods of DB", len(methods))
	}
	for m := range methods {
		if !examples[m] {
			t.Errorf("DB.%s has no ExampleDB_%s with an // Output: comment", m, m)
		}
	}
}

func recvName(fn *ast.FuncDecl) string {
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	id, _ := typ.(*ast.Ident)
	if id == nil {
		return ""
	}
	return id.Name
}

// hasOutput reports whether fn's body holds an "// Output:" comment.
func hasOutput(f *ast.File, fn *ast.FuncDecl) bool {
	for _, g := range f.Comments {
		if g.Pos() > fn.Body.Lbrace && g.End() < fn.Body.Rbrace && strings.HasPrefix(g.Text(), "Output:") {
			return true
		}
	}
	return false
}

// The README's Go snippet is ExampleOpen's body, so it compiles and runs
// as printed.
func TestReadmeGoAPI(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	snippet, ok := readmeGoAPI(string(readme))
	if !ok {
		t.Fatal("README.md has no ```go block under a heading \"## The Go API\"")
	}
	fset, files := parsePackage(t)
	body := ""
	for _, f := range files {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "ExampleOpen" {
				src, err := os.ReadFile(fset.Position(fn.Pos()).Filename)
				if err != nil {
					t.Fatal(err)
				}
				body = exampleBody(string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset]))
			}
		}
	}
	if body == "" {
		t.Fatal("no ExampleOpen")
	}
	if snippet != body {
		t.Errorf("the README's Go API snippet differs from ExampleOpen's body; copy one to the other.\nREADME:\n%s\nExampleOpen:\n%s",
			snippet, body)
	}
}

// readmeGoAPI returns the first ```go block after the "## The Go API"
// heading.
func readmeGoAPI(readme string) (string, bool) {
	i := strings.Index(readme, "\n## The Go API")
	if i < 0 {
		return "", false
	}
	rest := readme[i:]
	start := strings.Index(rest, "\n```go\n")
	if start < 0 {
		return "", false
	}
	rest = rest[start+len("\n```go\n"):]
	end := strings.Index(rest, "\n```\n")
	if end < 0 {
		return "", false
	}
	return rest[:end+1], true
}

// exampleBody removes one level of indentation from a function body and
// the example's output comment, which the README shows as prose.
func exampleBody(src string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.Trim(src, "\n"), "\n") {
		line = strings.TrimPrefix(line, "\t")
		if strings.HasPrefix(line, "// Output:") {
			break
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
