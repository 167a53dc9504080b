// Package aqlstore_test holds tests about the module as a whole.
package aqlstore_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/aqlstore/aqlstore"

// layer ranks the module's packages: a package may import packages of its
// own layer or a lower one, never a higher one. canon ← store ← index ←
// query ← aqlstore (the root package, the embedding API) ← server/bench ←
// cmd. bench (the comparison harness) queries the
// store as an embedder does, and the CLI runs it. bench/corpus generates
// documents and imports nothing of the module, so any layer's tests may
// use it. crashtest (the crash harness) drives the store, its index and
// the query engine as an embedder does, so it sits with server and bench.
func layer(pkg string) int {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	switch top := strings.SplitN(rel, "/", 2)[0]; {
	case rel == "bench/corpus":
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
	case top == "server", top == "bench", top == "crashtest":
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
	order := []string{"bench/corpus", "canon/pairl", "store", "index", "query/eval", "", "bench", "cmd/aqlstore"}
	path := func(rel string) string { return strings.TrimSuffix(module+"/"+rel, "/") }
	for i := 1; i < len(order); i++ {
		if layer(path(order[i-1])) >= layer(path(order[i])) {
			t.Errorf("%s should sit below %s", order[i-1], order[i])
		}
	}
}
