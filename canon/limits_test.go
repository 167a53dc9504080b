package canon

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// The boundary tests of canon's limits, one per limit: at the limit the
// input is accepted, one past it is refused with ErrLimit and a message
// naming the limit, its value and (where the input has one) the JSON
// Pointer of the offending node. Each limit is checked at its default and
// at a small configured value, through Decode and through Canonicalize
// (the put path), which must refuse exactly the same inputs.

// decodeBoth runs in through Decode and Canonicalize with lim and fails
// the test when the two disagree about whether it is accepted.
func decodeBoth(t *testing.T, in []byte, lim *Limits) error {
	t.Helper()
	_, derr := Decode(in, lim)
	_, cerr := Canonicalize(nil, in, lim)
	if (derr == nil) != (cerr == nil) {
		t.Fatalf("Decode says %v, Canonicalize says %v", derr, cerr)
	}
	if derr != nil && derr.Error() != cerr.Error() {
		t.Fatalf("Decode and Canonicalize refuse with different errors:\n%v\n%v", derr, cerr)
	}
	return derr
}

// wantLimitError checks that err is a limit refusal whose message holds
// every one of parts and whose pointer is ptr.
func wantLimitError(t *testing.T, err error, ptr string, parts ...string) {
	t.Helper()
	var se *SyntaxError
	if !errors.Is(err, ErrLimit) || !errors.As(err, &se) {
		t.Fatalf("got %v, want a *SyntaxError wrapping ErrLimit", err)
	}
	if se.Pointer != ptr {
		t.Errorf("pointer %q, want %q (%v)", se.Pointer, ptr, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
	if se.Fix == "" {
		t.Errorf("error %q says no fix", err)
	}
}

// stringOfSize is a JSON string document of exactly n bytes.
func stringOfSize(n int) []byte {
	return []byte(`"` + strings.Repeat("a", n-2) + `"`)
}

func TestLimitDocumentBytes(t *testing.T) {
	for _, lim := range []*Limits{nil, {MaxBytes: 64}} {
		max := limitsOrDefault(lim).MaxBytes
		if err := decodeBoth(t, stringOfSize(max), lim); err != nil {
			t.Fatalf("a document of exactly %d bytes: %v", max, err)
		}
		err := decodeBoth(t, stringOfSize(max+1), lim)
		wantLimitError(t, err, "", "document is "+strconv.Itoa(max+1)+" bytes", "over the limit of "+strconv.Itoa(max), "Limits.MaxBytes")
	}
	if DefaultLimits().MaxBytes != 4<<20 {
		t.Fatalf("the README documents a 4 MiB default, the code has %d", DefaultLimits().MaxBytes)
	}
}

// nested is depth arrays, one inside the other: [[...[]...]].
func nested(depth int) []byte {
	return []byte(strings.Repeat("[", depth-1) + "[]" + strings.Repeat("]", depth-1))
}

func TestLimitNestingDepth(t *testing.T) {
	for _, lim := range []*Limits{nil, {MaxDepth: 3}} {
		max := limitsOrDefault(lim).MaxDepth
		if err := decodeBoth(t, nested(max), lim); err != nil {
			t.Fatalf("nesting depth exactly %d: %v", max, err)
		}
		err := decodeBoth(t, nested(max+1), lim)
		// The array past the limit is element 0 of element 0 of ... :
		// its pointer has max segments.
		wantLimitError(t, err, strings.Repeat("/0", max),
			"nesting depth "+strconv.Itoa(max+1)+" is over the limit of "+strconv.Itoa(max), "Limits.MaxDepth")
	}
	// Objects count the same as arrays.
	obj := []byte(`{"a":{"b":{"c":{}}}}`)
	if err := decodeBoth(t, obj, &Limits{MaxDepth: 4}); err != nil {
		t.Fatalf("objects at depth 4: %v", err)
	}
	wantLimitError(t, decodeBoth(t, obj, &Limits{MaxDepth: 3}), "/a/b/c", "nesting depth 4 is over the limit of 3")
	if DefaultLimits().MaxDepth != 64 {
		t.Fatalf("the README documents depth 64, the code has %d", DefaultLimits().MaxDepth)
	}
}

// object is {"x": {"m0":0, ..., "m<n-1>":0}}; array is {"x": [0, ...]}.
func object(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"x":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"m` + strconv.Itoa(i) + `":0`)
	}
	b.WriteString("}}")
	return []byte(b.String())
}

func array(n int) []byte {
	return []byte(`{"x":[` + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]}")
}

func TestLimitMembersPerObject(t *testing.T) {
	for _, lim := range []*Limits{nil, {MaxMembers: 3}} {
		max := limitsOrDefault(lim).MaxMembers
		n, past := strconv.Itoa(max), strconv.Itoa(max+1)
		if err := decodeBoth(t, object(max), lim); err != nil {
			t.Fatalf("an object of exactly %d members: %v", max, err)
		}
		wantLimitError(t, decodeBoth(t, object(max+1), lim), "/x/m"+n,
			"object member "+past+" is over the limit of "+n+" members per object", "Limits.MaxMembers")
		// The same limit bounds an array's elements.
		if err := decodeBoth(t, array(max), lim); err != nil {
			t.Fatalf("an array of exactly %d elements: %v", max, err)
		}
		wantLimitError(t, decodeBoth(t, array(max+1), lim), "/x/"+n,
			"array element "+past+" is over the limit of "+n+" elements per array", "Limits.MaxMembers")
	}
	if DefaultLimits().MaxMembers != 10000 {
		t.Fatalf("the README documents 10,000 members, the code has %d", DefaultLimits().MaxMembers)
	}
}

// pointerLimitError checks a pointer refusal: a *PointerError matching
// ErrPointer whose message holds every one of parts.
func pointerLimitError(t *testing.T, err error, segment int, parts ...string) {
	t.Helper()
	var pe *PointerError
	if !errors.Is(err, ErrPointer) || !errors.As(err, &pe) {
		t.Fatalf("got %v, want a *PointerError", err)
	}
	if pe.Segment != segment {
		t.Errorf("segment %d, want %d (%v)", pe.Segment, segment, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
	// A hostile pointer must not flood the message: it is cut.
	if len(err.Error()) > 400 {
		t.Errorf("error is %d bytes long: %.100q...", len(err.Error()), err)
	}
}

func TestLimitPointerBytes(t *testing.T) {
	for _, lim := range []PointerLimits{{}, {MaxBytes: 8}} {
		max := lim.withDefaults().MaxBytes
		at := "/" + strings.Repeat("a", max-1)
		if p, err := ParsePointerLimits(at, lim); err != nil || p.String() != at {
			t.Fatalf("a pointer of exactly %d bytes: %v", max, err)
		}
		_, err := ParsePointerLimits(at+"a", lim)
		pointerLimitError(t, err, 0, strconv.Itoa(max+1)+" bytes", "over the limit MaxBytes="+strconv.Itoa(max))
	}
	if DefaultPointerMaxBytes != 1024 {
		t.Fatalf("the README documents 1,024 bytes, the code has %d", DefaultPointerMaxBytes)
	}
}

func TestLimitPointerSegments(t *testing.T) {
	for _, lim := range []PointerLimits{{}, {MaxSegments: 3}} {
		max := lim.withDefaults().MaxSegments
		// Wildcards count as segments: ** must not get around the limit.
		at := strings.Repeat("/**", max)
		p, err := ParsePointerLimits(at, lim)
		if err != nil || len(p.Segments()) != max {
			t.Fatalf("a pointer of exactly %d segments: %v", max, err)
		}
		_, err = ParsePointerLimits(at+"/a", lim)
		pointerLimitError(t, err, max+1, "more than MaxSegments="+strconv.Itoa(max)+" segments")
	}
	if DefaultPointerMaxSegments != 64 {
		t.Fatalf("the README documents 64 segments, the code has %d", DefaultPointerMaxSegments)
	}
}
