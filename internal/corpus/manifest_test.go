package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaDir holds the published OAP schemas; a user's clone has no
// ../shared, so the test skips without it.
const schemaDir = "../../../shared/vectors/oap/schemas/v1.0"

const manifestSchemaID = "https://openagentprotocol.eu/schemas/v1.0/oap-manifest.schema.json"

// TestManifestsValidate validates the first manifests and, because the
// controlled variants are rare, the first few documents that match each
// controlled predicate.
func TestManifestsValidate(t *testing.T) {
	sch := compileManifestSchema(t)
	const seed = 1
	indices := make([]int, 0, 400)
	for i := range 300 {
		indices = append(indices, i)
	}
	for _, s := range kindSpecs(t, KindManifest) {
		indices = append(indices, matching(s, seed, 3)...)
	}
	for _, i := range indices {
		doc, err := Document(KindManifest, seed, i, nil)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Fatalf("manifest %d does not validate: %v\n%s", i, err, doc)
		}
	}
}

// TestManifestSchemaRejects is the control for TestManifestsValidate: the
// compiled schema must refuse a member the manifest schema does not define.
func TestManifestSchemaRejects(t *testing.T) {
	sch := compileManifestSchema(t)
	doc, _ := Document(KindManifest, 1, 0, nil)
	bad := bytes.Replace(doc, []byte(`{"oap_version"`), []byte(`{"x-bucket":"sel_1pct","oap_version"`), 1)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if sch.Validate(inst) == nil {
		t.Fatal("schema accepted a manifest with an undefined top-level member")
	}
}

func compileManifestSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(schemaDir, "*.schema.json"))
	if len(files) == 0 {
		t.Skipf("no OAP schemas in %s", schemaDir)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // our timestamps, URIs and e-mails must be well formed too
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		id := "https://openagentprotocol.eu/schemas/v1.0/" + filepath.Base(f)
		if err := c.AddResource(id, doc); err != nil {
			t.Fatal(err)
		}
	}
	sch, err := c.Compile(manifestSchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func kindSpecs(t *testing.T, kind string) []spec {
	k, ok := kindByName(kind)
	if !ok {
		t.Fatalf("no kind %q", kind)
	}
	return k.specs
}

// matching returns the first max indices whose documents satisfy s.
func matching(s spec, seed uint64, max int) []int {
	var out []int
	for i := 0; len(out) < max; i++ {
		if r := rank(seed, s.field, i); r >= s.lo && r < s.hi {
			out = append(out, i)
		}
	}
	return out
}
