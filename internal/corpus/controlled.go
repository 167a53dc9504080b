package corpus

// Controlled values shared by several kinds: a price with a decimal-string
// range predicate and an instant with an `after` predicate. Each pairs the
// value's generation with its predicate so the two cannot drift apart.

const (
	// afterThreshold is the instant of the `after` predicates; controlled
	// documents fall within 90 days after it, the rest within two years up
	// to and including it (after is strict).
	afterThreshold = "2026-01-01T00:00:00Z"
	afterUnix      = 1767225600
	day            = 86400

	// priceThreshold is the operand of the `lte` price predicates;
	// controlled prices lie in [1.00, 100.00], the rest in [100.01, 999.99].
	priceThreshold      = "100.00"
	priceThresholdCents = 10000
)

// instant returns a Unix time that is after afterThreshold exactly when the
// document's rank for f is in the 0.1% range.
func (s *source) instant(f field) int64 {
	if s.hit(f, rank01pct) {
		return afterUnix + 1 + int64(s.intn(90*day))
	}
	return afterUnix - int64(s.intn(730*day))
}

// price returns an amount in cents that is ≤ priceThreshold exactly when
// the document's price rank is in the 0.1% range.
func (s *source) price() int64 {
	if s.hit(fieldPrice, rank01pct) {
		return int64(s.between(100, priceThresholdCents))
	}
	return int64(s.between(priceThresholdCents+1, 99999))
}

func afterSpec(path string, f field) spec {
	return newSpec("after_0.1pct", path, "after", afterThreshold, f, 0, rank01pct)
}

func priceSpec(path string) spec {
	return newSpec("price_lte_0.1pct", path, "lte", priceThreshold, fieldPrice, 0, rank01pct)
}
