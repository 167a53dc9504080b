package canon

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// ptrCaseFile is testdata/pointer/cases.json: the project's own cases,
// which always run (the public vectors live outside the module).
type ptrCaseFile struct {
	Documents map[string]json.RawMessage `json:"documents"`
	Cases     []struct {
		Name    string          `json:"name"`
		Doc     string          `json:"doc"`
		Pointer string          `json:"pointer"`
		Want    json.RawMessage `json:"want"`
		Error   *struct {
			Segment int    `json:"segment"`
			Offset  int    `json:"offset"`
			Reason  string `json:"reason"`
		} `json:"error"`
	} `json:"cases"`
}

func loadPointerCases(t testing.TB) (*ptrCaseFile, map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pointer", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f ptrCaseFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("cases.json: %v", err)
	}
	docs := map[string]any{}
	for name, raw := range f.Documents {
		docs[name] = testDecode(t, string(raw))
	}
	return &f, docs
}

func TestPointerCases(t *testing.T) {
	f, docs := loadPointerCases(t)
	passed := 0
	for _, c := range f.Cases {
		ok := t.Run(c.Name, func(t *testing.T) {
			p, err := ParsePointer(c.Pointer)
			if c.Error != nil {
				var pe *PointerError
				if !errors.As(err, &pe) || pe.Segment != c.Error.Segment || pe.Offset != c.Error.Offset || !strings.Contains(pe.Reason, c.Error.Reason) {
					t.Fatalf("%q: got %v, want segment %d offset %d reason ~ %q", c.Pointer, err, c.Error.Segment, c.Error.Offset, c.Error.Reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("%q: %v", c.Pointer, err)
			}
			doc, found := docs[c.Doc]
			if !found {
				t.Fatalf("no document %q", c.Doc)
			}
			got, want := p.ResolveAll(doc, nil), testDecode(t, string(c.Want))
			if !ptrJSONEqual(got, want) {
				t.Fatalf("%q: got %s, want %s", c.Pointer, ptrJSON(got), ptrJSON(want))
			}
		})
		if ok {
			passed++
		}
	}
	t.Logf("testdata/pointer/cases.json: %d/%d cases passed", passed, len(f.Cases))
}

// pointerVectors returns a file under ../shared/vectors/json-pointer, or
// skips: a user's clone of the module has no ../shared.
func pointerVectors(t *testing.T, parts ...string) string {
	t.Helper()
	path := filepath.Join(append([]string{"..", "..", "shared", "vectors", "json-pointer"}, parts...)...)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("public JSON Pointer vectors not present (%s): %v", path, err)
	}
	return path
}

func readPointerVectors(t *testing.T, v any, parts ...string) {
	t.Helper()
	b, err := os.ReadFile(pointerVectors(t, parts...))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", filepath.Join(parts...), err)
	}
}

type rfc6901Example struct {
	Pointer       string          `json:"pointer"`
	Expected      json.RawMessage `json:"expected"`
	WholeDocument bool            `json:"whole_document"`
}

// TestPointerRFC6901Examples runs the 24 examples of RFC 6901 §5 and §6.
// Our semantics differ on "/" (and "#/"): the RFC selects the member named
// "" (0); we select the whole document, and assert so. The member stays
// reachable: it sorts first under "/*". The §6 fragment form is decoded
// here (strip "#", percent-decode), because ParsePointer takes the JSON
// string form only; that it refuses the raw fragment is asserted too.
func TestPointerRFC6901Examples(t *testing.T) {
	var file struct {
		Document   json.RawMessage  `json:"document"`
		JSONString []rfc6901Example `json:"json_string_representation"`
		Fragment   []rfc6901Example `json:"uri_fragment_representation"`
	}
	readPointerVectors(t, &file, "rfc6901", "rfc6901-examples.json")
	doc := testDecode(t, string(file.Document))
	passed, deviations := 0, 0
	for i, c := range file.JSONString {
		if c.Pointer == "/" {
			deviations++
		}
		if t.Run(fmt.Sprintf("string%02d", i), func(t *testing.T) { checkRFC6901Example(t, doc, c.Pointer, c) }) {
			passed++
		}
	}
	for i, c := range file.Fragment {
		if c.Pointer == "#/" {
			deviations++
		}
		if t.Run(fmt.Sprintf("fragment%02d", i), func(t *testing.T) {
			var pe *PointerError
			if _, err := ParsePointer(c.Pointer); !errors.As(err, &pe) || pe.Segment != 0 {
				t.Fatalf("raw fragment %q: got %v, want a whole-pointer error", c.Pointer, err)
			}
			s, err := url.PathUnescape(strings.TrimPrefix(c.Pointer, "#"))
			if err != nil {
				t.Fatalf("fragment %q: %v", c.Pointer, err)
			}
			checkRFC6901Example(t, doc, s, c)
		}) {
			passed++
		}
	}
	total := len(file.JSONString) + len(file.Fragment)
	t.Logf("rfc6901-examples.json: %d/%d cases passed (%d of them assert our \"/\" = whole document)", passed, total, deviations)
}

func checkRFC6901Example(t *testing.T, doc any, s string, c rfc6901Example) {
	p, err := ParsePointer(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	want := testDecode(t, string(c.Expected))
	got := p.ResolveAll(doc, nil)
	if s == "/" {
		// Deviation: RFC 6901 gives the member "" (0); we give the root.
		if !p.IsRoot() || len(got) != 1 || !ptrJSONEqual(got[0], doc) {
			t.Fatalf(`"/": got %s, want the whole document`, ptrJSON(got))
		}
		if v, ok := MustParsePointer("/*").First(doc); !ok || !ptrJSONEqual(v, want) {
			t.Fatalf(`"/*" first = %s, want the member "" = %s`, ptrJSON(v), ptrJSON(want))
		}
		return
	}
	if p.IsRoot() != c.WholeDocument || len(got) != 1 || !ptrJSONEqual(got[0], want) {
		t.Fatalf("%q: got %s (root %v), want %s (root %v)", s, ptrJSON(got), p.IsRoot(), ptrJSON(want), c.WholeDocument)
	}
}

// TestPointerJSONSchemaFormat runs JSON-Schema-Test-Suite's "json-pointer"
// format cases: pointer syntax only. Our extension changes no verdict
// there ("*" and "**" are valid RFC 6901 tokens anyway), but it changes
// what "/" means, so that case also asserts "/" is the root. The six
// non-string cases test JSON Schema's "formats ignore non-strings" rule,
// not pointers, and are counted as ignored.
func TestPointerJSONSchemaFormat(t *testing.T) {
	var groups []struct {
		Tests []struct {
			Description string          `json:"description"`
			Data        json.RawMessage `json:"data"`
			Valid       bool            `json:"valid"`
		} `json:"tests"`
	}
	readPointerVectors(t, &groups, "json-schema-test-suite", "draft2020-12-format-json-pointer.json")
	passed, total, ignored, deviations := 0, 0, 0, 0
	for _, g := range groups {
		for _, c := range g.Tests {
			s, ok := ptrJSONString(c.Data)
			if !ok {
				ignored++
				continue
			}
			total++
			if s == "/" {
				deviations++
			}
			if t.Run(c.Description, func(t *testing.T) { checkSchemaPointer(t, s, c.Valid) }) {
				passed++
			}
		}
	}
	t.Logf("draft2020-12-format-json-pointer.json: %d/%d cases passed (%d asserts \"/\" = whole document; %d non-string cases ignored)", passed, total, deviations, ignored)
}

func checkSchemaPointer(t *testing.T, s string, valid bool) {
	p, err := ParsePointer(s)
	var pe *PointerError
	switch {
	case valid && err != nil:
		t.Fatalf("%q: %v, want valid", s, err)
	case !valid && !errors.As(err, &pe):
		t.Fatalf("%q: got %v, want a *PointerError", s, err)
	case valid && s == "/" && !p.IsRoot():
		t.Fatalf(`"/": want the whole document (our deviation from RFC 6901)`)
	}
}

// patchRecord is one json-patch-tests record.
type patchRecord struct {
	Comment  string                       `json:"comment"`
	Doc      json.RawMessage              `json:"doc"`
	Patch    []map[string]json.RawMessage `json:"patch"`
	Error    json.RawMessage              `json:"error"`
	Disabled bool                         `json:"disabled"`
}

// rfc6901Index is RFC 6901's array-index production.
var rfc6901Index = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

type patchOp struct {
	op, path, from string
	value          any
	hasPath        bool
	hasFrom        bool
	hasValue       bool
}

func TestPointerJSONPatchTests(t *testing.T) {
	runPatchVectors(t, "tests.json")
}

func TestPointerJSONPatchSpecTests(t *testing.T) {
	runPatchVectors(t, "spec_tests.json")
}

// runPatchVectors uses json-patch-tests records. They are RFC 6902
// patches, not pointer cases, so only what a record's outcome proves about
// its pointers is checked, against the patch's original document:
//
//   - "test": succeeds ⇔ path resolves to a value equal to "value". The
//     suite's "/" cases (RFC: member "") are asserted the other way: "/"
//     resolves to the whole document.
//   - "remove", "replace": succeed ⇒ path resolves; fail ⇒ it does not.
//   - "add" (and the target of "copy", "move"): succeeds ⇔ path is "" or
//     its parent resolves to an object, or to an array and the last token
//     is "-" or an index ≤ its length. This judges the target the RFC 6902
//     way (parent plus token), so the add to "/" (member "") is checked
//     through its parent "", not through our reading of "/".
//   - "copy", "move": succeed ⇔ from resolves and the target is valid (and
//     for move, from is not a proper prefix of path).
//
// Ops after the first one that changes the document are not checked (the
// document they see is not the one in the record). Error records are used
// only when they have one op with well-formed members: a missing "value"
// or "from", a non-string path or an unknown op is a patch error, not a
// pointer one. Disabled records are skipped, as upstream says.
func runPatchVectors(t *testing.T, name string) {
	var records []patchRecord
	readPointerVectors(t, &records, "json-patch-tests", name)
	skipped := map[string]int{}
	passed, claims, deviations, unchecked := 0, 0, 0, 0
	for i, rec := range records {
		if rec.Disabled {
			skipped["disabled"]++
			continue
		}
		ops, why := patchOps(t, rec)
		if why != "" {
			skipped[why]++
			continue
		}
		doc := testDecode(t, string(rec.Doc))
		var n, dev int
		if t.Run(fmt.Sprintf("%02d", i), func(t *testing.T) {
			n, dev = checkPatchRecord(t, rec, doc, ops)
		}) {
			passed++
			claims += n
			deviations += dev
			unchecked += len(ops) - n
		}
	}
	used := len(records) - sumCounts(skipped)
	t.Logf("%s: %d/%d records used passed (%d pointer claims, %d assert \"/\" = whole document; %d ops after a document change not checked); %d records not pointer cases: %v",
		name, passed, used, claims, deviations, unchecked, sumCounts(skipped), skipped)
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// patchOps decodes a record's ops, or says why the record is not a
// pointer case.
func patchOps(t *testing.T, rec patchRecord) ([]patchOp, string) {
	if len(rec.Patch) == 0 {
		return nil, "empty patch"
	}
	failing := len(rec.Error) > 0
	if failing && len(rec.Patch) > 1 {
		return nil, "error record with several ops"
	}
	var ops []patchOp
	for _, raw := range rec.Patch {
		op := decodePatchOp(t, raw)
		if why := op.malformed(); why != "" {
			if failing {
				return nil, why
			}
			t.Fatalf("%q: a successful patch has a malformed op: %s", rec.Comment, why)
		}
		ops = append(ops, op)
	}
	return ops, ""
}

func decodePatchOp(t *testing.T, raw map[string]json.RawMessage) patchOp {
	var op patchOp
	op.op, _ = ptrJSONString(raw["op"])
	op.path, op.hasPath = ptrJSONString(raw["path"])
	op.from, op.hasFrom = ptrJSONString(raw["from"])
	if v, ok := raw["value"]; ok {
		op.value, op.hasValue = testDecode(t, string(v)), true
	}
	return op
}

// ptrJSONString decodes raw if it is a JSON string; encoding/json alone
// would also accept null.
func ptrJSONString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func (op patchOp) malformed() string {
	switch {
	case op.op != "add" && op.op != "remove" && op.op != "replace" &&
		op.op != "test" && op.op != "copy" && op.op != "move":
		return "unknown op"
	case !op.hasPath:
		return "path missing or not a string"
	case (op.op == "add" || op.op == "replace" || op.op == "test") && !op.hasValue:
		return "value missing"
	case (op.op == "copy" || op.op == "move") && !op.hasFrom:
		return "from missing"
	}
	return ""
}

// checkPatchRecord checks the claims of one record and returns how many
// it checked and how many of them assert the "/" deviation.
func checkPatchRecord(t *testing.T, rec patchRecord, doc any, ops []patchOp) (claims, deviations int) {
	wantOK := len(rec.Error) == 0
	for i, op := range ops {
		if i > 0 && ops[i-1].op != "test" {
			break
		}
		if op.op == "test" && op.path == "/" {
			if v, ok := MustParsePointer("/").First(doc); !ok || !ptrJSONEqual(v, doc) {
				t.Fatalf(`%q: "/" should resolve to the whole document`, rec.Comment)
			}
			claims, deviations = claims+1, deviations+1
			continue
		}
		if got := patchOpSucceeds(t, doc, op); got != wantOK {
			t.Fatalf("%q: %s %q (from %q): pointers say success=%v, record says %v", rec.Comment, op.op, op.path, op.from, got, wantOK)
		}
		claims++
	}
	return claims, deviations
}

// patchOpSucceeds tells from pointer resolution alone whether op can
// apply to doc.
func patchOpSucceeds(t *testing.T, doc any, op patchOp) bool {
	switch op.op {
	case "test":
		v, ok := patchResolve(t, doc, op.path)
		return ok && ptrJSONEqual(v, op.value)
	case "remove", "replace":
		_, ok := patchResolve(t, doc, op.path)
		return ok
	case "add":
		return patchTargetOK(t, doc, op.path)
	}
	_, ok := patchResolve(t, doc, op.from)
	if op.op == "move" && strings.HasPrefix(op.path, op.from+"/") {
		return false
	}
	return ok && patchTargetOK(t, doc, op.path)
}

// patchResolve resolves an RFC 6901 pointer from the suite; one that does
// not parse resolves to nothing, as the suite expects.
func patchResolve(t *testing.T, doc any, s string) (any, bool) {
	if s == "/" {
		t.Fatalf(`vector resolves "/" outside a test op: add an explicit assertion of our semantics`)
	}
	p, err := ParsePointer(s)
	if err != nil {
		return nil, false
	}
	if p.HasWildcard() {
		t.Fatalf("vector pointer %q has a wildcard segment: RFC 6901 would read it as a name", s)
	}
	return p.First(doc)
}

// patchTargetOK is RFC 6902 §4.1's rule for where "add" may write.
func patchTargetOK(t *testing.T, doc any, s string) bool {
	if s == "" {
		return true
	}
	if _, err := ParsePointer(s); err != nil {
		return false
	}
	cut := strings.LastIndexByte(s, '/')
	parentText := s[:cut]
	// A one-pass replacer decodes "~01" to "~1", as RFC 6901 §4 requires.
	last := strings.NewReplacer("~1", "/", "~0", "~").Replace(s[cut+1:])
	if parentText == "/" {
		t.Fatalf(`vector's target %q has parent "/": add an explicit assertion of our semantics`, s)
	}
	parent, ok := MustParsePointer(parentText).First(doc)
	if !ok {
		return false
	}
	switch parent := parent.(type) {
	case map[string]any:
		return true
	case []any:
		if last == "-" {
			return true
		}
		// Checked apart from arrayIndex, which is under test.
		i, err := strconv.Atoi(last)
		return rfc6901Index.MatchString(last) && err == nil && i <= len(parent)
	}
	return false
}
