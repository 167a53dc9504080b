package corpus

import "reflect"

// Predicate is an AQL leaf whose result count the generator controls.
//
// Path is an extended JSON Pointer (a "*" segment means every array element)
// relative to the document that AQL constraints see: the whole document for
// every kind except "candidate", whose constraints apply to its record (see
// PredicateRoot). Operator is an AQL operator name (eq, contains, lte, gte,
// after) and Value its operand, as it would appear in an intent. Selectivity
// is the exact fraction of every full block of BlockSize documents that
// satisfies the predicate.
type Predicate struct {
	Name        string
	Path        string
	Operator    string
	Value       any
	Selectivity float64
}

// spec ties a Predicate to the controlled field and rank range [lo, hi)
// that decide it; generator and ExpectedCount share it, which is what keeps
// the documents and the counts in agreement.
type spec struct {
	Predicate
	field  field
	lo, hi uint32
}

func newSpec(name, path, op string, value any, f field, lo, hi uint32) spec {
	sel := float64(hi-lo) / BlockSize
	return spec{Predicate{name, path, op, value, sel}, f, lo, hi}
}

// bucketSpecs returns the eq predicates on the bucket field at path, one
// per class.
func bucketSpecs(path string) []spec {
	names := [...]string{"eq_0.01pct", "eq_0.1pct", "eq_1pct", "eq_10pct", "eq_50pct"}
	out := make([]spec, len(buckets))
	for k, b := range buckets {
		out[k] = newSpec(names[k], path, "eq", b.name, fieldBucket, b.lo, b.hi)
	}
	return out
}

// Predicates returns the predicates the generator controls for kind, or nil
// for an unknown kind. The slice is the caller's to keep.
func Predicates(kind string) []Predicate {
	k, ok := kindByName(kind)
	if !ok {
		return nil
	}
	out := make([]Predicate, len(k.specs))
	for j, s := range k.specs {
		out[j] = s.Predicate
	}
	return out
}

// PredicateRoot returns the JSON Pointer, within a generated document, of
// the value the kind's predicate paths are relative to: "/record" for
// "candidate" (the candidate shape's record is the stored document and its
// other members are ranking signals), "" (the whole document) otherwise.
func PredicateRoot(kind string) string {
	if kind == KindCandidate {
		return "/record"
	}
	return ""
}

// ExpectedCount returns how many of documents 0..n-1 of kind under seed
// satisfy p, which must be one of Predicates(kind) (compared by all fields
// but Selectivity); otherwise it returns -1. It evaluates the assignment
// that the generator uses, never the documents: full blocks contribute their
// exact per-block count, and only the last partial block is walked.
func ExpectedCount(kind string, p Predicate, seed uint64, n int) int {
	s, ok := lookupSpec(kind, p)
	if !ok {
		return -1
	}
	if n <= 0 {
		return 0
	}
	full := n / BlockSize
	count := full * int(s.hi-s.lo)
	for i := full * BlockSize; i < n; i++ {
		if r := rank(seed, s.field, i); r >= s.lo && r < s.hi {
			count++
		}
	}
	return count
}

func lookupSpec(kind string, p Predicate) (spec, bool) {
	k, ok := kindByName(kind)
	if !ok {
		return spec{}, false
	}
	for _, s := range k.specs {
		if s.Name == p.Name && s.Path == p.Path && s.Operator == p.Operator &&
			reflect.DeepEqual(s.Value, p.Value) {
			return s, true
		}
	}
	return spec{}, false
}
