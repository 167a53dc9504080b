package server

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestManifestValidates: /.well-known/oap-tool.json, signed, declares
// endpoints.intent = /oap/intent and the storage endpoints, and with
// exactly the documented extensions (ManifestExtensions) left out is a
// valid oap-manifest.schema.json document, with paths and with absolute
// URLs (then with format assertions too).
func TestManifestValidates(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "vectors", "oap", "schemas", "v1.0")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared is absent: the manifest schema check is skipped")
	}
	for _, publicURL := range []string{"", "https://resolver.example"} {
		ts := startServer(t, func(c *Config) { c.PublicURL = publicURL })
		status, _, body := ts.do("GET", "/.well-known/oap-tool.json", "", "", nil)
		if status != 200 {
			t.Fatalf("manifest: %d %s", status, body)
		}
		ts.verified(body)
		m := canonDoc(t, body)
		endpoints := m["endpoints"].(map[string]any)
		if endpoints["intent"] != publicURL+"/oap/intent" || endpoints["storage_put"] != publicURL+"/storage/documents" {
			t.Fatalf("endpoints %v", endpoints)
		}
		for _, ptr := range ManifestExtensions {
			parent, name := m, ptr[1:]
			if p, n, ok := strings.Cut(name, "/"); ok {
				parent, name = m[p].(map[string]any), n
			}
			if _, ok := parent[name]; !ok {
				t.Fatalf("extension %s is not in the manifest", ptr)
			}
			delete(parent, name)
		}
		sch := manifestSchema(t, dir, publicURL != "")
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(canon.AppendValue(nil, m)))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Fatalf("with %q: the manifest does not validate against oap-manifest.schema.json: %v", publicURL, err)
		}
	}
}

func manifestSchema(t *testing.T, dir string, formats bool) *jsonschema.Schema {
	t.Helper()
	return oapSchema(t, dir, formats, "oap-manifest.schema.json", "oap-action.schema.json", "oap-commerce-primitive.schema.json")
}

// oapSchema compiles the published OAP schema root from dir, with the
// schemas it refers to (refs); formats turns on format assertions.
func oapSchema(t *testing.T, dir string, formats bool, root string, refs ...string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	if formats {
		c.AssertFormat()
	}
	const base = "https://openagentprotocol.eu/schemas/v1.0/"
	for _, name := range append([]string{root}, refs...) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(base+name, doc); err != nil {
			t.Fatal(err)
		}
	}
	sch, err := c.Compile(base + root)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}
