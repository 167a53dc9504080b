// Package aqlstore_test holds tests about the module as a whole.
package aqlstore_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/aqlstore/aqlstore"

// layer ranks the module's packages: a package may import packages of its
// own layer or a lower one, never a higher one. canon ← store ← index ←
// query ← aqlstore (the root package, the embedding API) ← server/bench ←
// cmd. bench (the comparison harness) queries the store as an embedder
// does, and its command (cmd/aqlbench) runs it. internal/ sits at the
// bottom: its packages (the corpus generator) import nothing of the
// module, so any package may use them. crashtest (the crash harness)
// drives the store, its index and
// the query engine as an embedder does, so it sits with server and bench;
// so does cluster, which runs stores as shards.
func layer(pkg string) int {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	switch top := strings.SplitN(rel, "/", 2)[0]; {
	case top == "internal":
		return 0
	case top == "canon":
		return 1
	case top == "store":
		return 2
	case top == "index":
		return 3
	case top == "query":
		return 4
	case rel == "":
		return 5
	case top == "server", top == "bench", top == "crashtest", top == "cluster":
		return 6
	case top == "cmd":
		return 7
	}
	return 8
}

// TestLayering fails when a package imports against the direction above.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) && layer(imp) > layer(p.ImportPath) {
				t.Errorf("%s imports %s: against the direction canon ← store ← index ← query ← aqlstore ← server/bench ← cmd",
					p.ImportPath, imp)
			}
		}
		checked++
	}
	if checked < 3 {
		t.Fatalf("only %d packages listed", checked)
	}
	t.Logf("%d packages checked", checked)
}

// TestLayerOrder keeps the ranking itself honest, so TestLayering cannot
// pass by ranking everything alike.
func TestLayerOrder(t *testing.T) {
	order := []string{"internal/corpus", "canon/pairl", "store", "index", "query/eval", "", "bench", "cmd/aqlstore"}
	path := func(rel string) string { return strings.TrimSuffix(module+"/"+rel, "/") }
	for i := 1; i < len(order); i++ {
		if layer(path(order[i-1])) >= layer(path(order[i])) {
			t.Errorf("%s should sit below %s", order[i-1], order[i])
		}
	}
}

// heavyModules are what the benchmark and load-test command (cmd/aqlbench)
// links and the database command must not: SQL drivers, other engines,
// plotting and its fonts.
var heavyModules = []string{
	"github.com/mattn/go-sqlite3",
	"github.com/jackc/pgx",
	"gonum.org/v1/plot",
	"go-fonts",
	"github.com/duckdb/",
	"github.com/blevesearch/",
}

// TestLeanImports keeps cmd/aqlstore free of the harness's dependencies:
// its binary builds without cgo and stays small.
func TestLeanImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./cmd/aqlstore").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps ./cmd/aqlstore listed only %d packages", len(deps))
	}
	for _, d := range deps {
		for _, h := range heavyModules {
			if strings.Contains(d, h) {
				t.Errorf("cmd/aqlstore depends on %s: benchmark-only code belongs in cmd/aqlbench", d)
			}
		}
	}
}

// TestLeanBuildWithoutCgo builds cmd/aqlstore with CGO_ENABLED=0.
func TestLeanBuildWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(t.TempDir(), "aqlstore"), "./cmd/aqlstore")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./cmd/aqlstore: %v\n%s", err, out)
	}
}
