package canon

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// sharedVectors returns the path of a folder under ../shared/vectors, or
// skips the test: a user's clone has no ../shared.
func sharedVectors(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "vectors", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("public vectors not present (%s): %v", dir, err)
	}
	return dir
}

func TestJSONTestSuite(t *testing.T) {
	dir := sharedVectors(t, "json-test-suite/test_parsing")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no JSONTestSuite files in %s: %v", dir, err)
	}
	// Both are valid JSON, but aqlstore rejects duplicate member names.
	duplicates := map[string]bool{"y_object_duplicated_key.json": true, "y_object_duplicated_key_and_value.json": true}
	var accepted, rejected, implementation int
	for _, f := range files {
		name := filepath.Base(f)
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, derr := Decode(b, nil)
		switch {
		case duplicates[name]:
			if derr == nil {
				t.Errorf("%s: duplicate member names accepted", name)
			}
			rejected++
		case strings.HasPrefix(name, "y_"):
			if derr != nil {
				t.Errorf("%s: rejected valid JSON: %v", name, derr)
			}
			accepted++
		case strings.HasPrefix(name, "n_"):
			if derr == nil {
				t.Errorf("%s: accepted invalid JSON %q", name, b)
			}
			rejected++
		default:
			implementation++ // i_ files: either answer is allowed; never a panic
		}
	}
	t.Logf("JSONTestSuite: %d y_ accepted, %d n_ and duplicate-key rejected, %d i_ decoded without panic", accepted, rejected, implementation)
}

func TestJCSCyberphonePairs(t *testing.T) {
	dir := sharedVectors(t, "jcs-cyberphone")
	inputs, _ := filepath.Glob(filepath.Join(dir, "input", "*.json"))
	if len(inputs) == 0 {
		t.Fatal("no JCS input files")
	}
	for _, in := range inputs {
		raw, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, "output", filepath.Base(in)))
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := Canonical(raw, nil)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(in), err)
			continue
		}
		if !bytes.Equal(got, bytes.TrimRight(want, "\n")) {
			t.Errorf("%s:\n got %s\nwant %s", filepath.Base(in), got, want)
		}
		if ref, err := jcs.Transform(raw); err != nil || !bytes.Equal(got, ref) {
			t.Errorf("%s: differs from gowebpki/jcs (%v)", filepath.Base(in), err)
		}
		hexWant, err := os.ReadFile(filepath.Join(dir, "outhex", strings.TrimSuffix(filepath.Base(in), ".json")+".txt"))
		if err == nil {
			h, _ := hex.DecodeString(strings.Join(strings.Fields(string(hexWant)), ""))
			if !bytes.Equal(got, h) {
				t.Errorf("%s: bytes differ from outhex", filepath.Base(in))
			}
		}
	}
	t.Logf("JCS cyberphone: %d input/output pairs byte-exact", len(inputs))
}

// numberVector is one "<ieee754 hex>,<expected JSON>" row.
func forEachNumberVector(t *testing.T, path string, fn func(f float64, want string)) int {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	n := 0
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		hexBits, want, ok := strings.Cut(sc.Text(), ",")
		if !ok || hexBits == "ieee754_hex" {
			continue
		}
		if i := strings.IndexByte(want, ','); i >= 0 {
			want = want[:i] // appendix_b.csv carries a comment column
		}
		bits, err := strconv.ParseUint(hexBits, 16, 64)
		if err != nil {
			t.Fatalf("%s: bad row %q", path, sc.Text())
		}
		f := math.Float64frombits(bits)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue // not JSON numbers
		}
		fn(f, want)
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestJCSNumberVectors(t *testing.T) {
	dir := sharedVectors(t, "jcs-lattice-json-canon")
	for _, file := range []string{"numbers/golden_vectors.csv", "rfc8785/appendix_b.csv"} {
		fails := 0
		n := forEachNumberVector(t, filepath.Join(dir, file), func(f float64, want string) {
			// The whole pipeline: a literal in, the canonical literal out.
			in := strconv.FormatFloat(f, 'g', -1, 64)
			got, err := Canonicalize(nil, []byte(in), nil)
			if (err != nil || string(got) != want) && fails < 10 {
				fails++
				t.Errorf("%s: %s → %q (err %v), want %q", file, in, got, err, want)
			}
		})
		t.Logf("%s: %d number vectors checked, %d failed", file, n, fails)
	}
}

// TestJCSKeySorting checks the RFC 8785 §3.2.3 member order. The expected
// file lists the keys in order, written with JSON escapes, and spells the
// carriage-return key as the two characters `\r`; so the test compares the
// order of the keys, not bytes.
func TestJCSKeySorting(t *testing.T) {
	dir := sharedVectors(t, "jcs-lattice-json-canon/rfc8785")
	in, err := os.ReadFile(filepath.Join(dir, "key_sorting_input.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "key_sorting_output.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Canonical(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	gotKeys, wantKeys := keyOrder(t, got), keyOrder(t, want)
	for i := range wantKeys {
		if wantKeys[i] == `\r` {
			wantKeys[i] = "\r"
		}
	}
	if strings.Join(gotKeys, "|") != strings.Join(wantKeys, "|") {
		t.Errorf("key order %q, want %q", gotKeys, wantKeys)
	}
}

func keyOrder(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip any
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestJCSConformanceCore runs the accepted cases of core.jsonl: the
// canonical output must be byte-exact. reject.jsonl encodes a stricter
// profile than RFC 8785 (it rejects -0, for one), so it is not used.
func TestJCSConformanceCore(t *testing.T) {
	dir := sharedVectors(t, "jcs-lattice-json-canon/conformance")
	b, err := os.ReadFile(filepath.Join(dir, "core.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var c struct {
			ID         string `json:"id"`
			Mode       string `json:"mode"`
			Input      string `json:"input"`
			WantStdout string `json:"want_stdout"`
			WantExit   int    `json:"want_exit"`
		}
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatal(err)
		}
		if c.Mode != "canonicalize" || c.WantExit != 0 {
			continue
		}
		got, _, err := Canonical([]byte(c.Input), nil)
		if err != nil {
			t.Errorf("%s: %q rejected: %v", c.ID, c.Input, err)
			continue
		}
		if string(got) != strings.TrimRight(c.WantStdout, "\n") {
			t.Errorf("%s: %q → %q, want %q", c.ID, c.Input, got, c.WantStdout)
		}
		n++
	}
	t.Logf("core.jsonl: %d canonicalize cases byte-exact", n)
}

// The library's own number formatter against the es6 file too: a second,
// independent oracle for the 10k most common doubles.
func TestJCSES6Numbers(t *testing.T) {
	dir := sharedVectors(t, "jcs-cyberphone/es6numbers")
	fh, err := os.Open(filepath.Join(dir, "es6testfile-first10k.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	n := 0
	for sc.Scan() {
		hexBits, want, _ := strings.Cut(sc.Text(), ",")
		bits, err := strconv.ParseUint(hexBits, 16, 64)
		if err != nil {
			t.Fatalf("bad row %q", sc.Text())
		}
		got, err := jcs.NumberToJSON(math.Float64frombits(bits))
		if err != nil || got != want {
			t.Errorf("%s: got %q (%v), want %q", hexBits, got, err, want)
		}
		n++
	}
	t.Logf("es6 numbers: %d checked", n)
}
