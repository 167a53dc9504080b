package aql

import "time"

// CheckValidity returns nil when at lies in the intent's validity window,
// both ends included, and otherwise a *ValidityError (matching
// ErrOutsideValidity) naming the window and the instant. The clock is the
// caller's so that old example intents stay runnable (--at).
func (i *Intent) CheckValidity(at time.Time) error {
	if !i.Validity.Contains(at) {
		return &ValidityError{Validity: i.Validity, At: at}
	}
	return nil
}

// Contains reports whether at lies in the window, both ends included.
func (v Validity) Contains(at time.Time) bool {
	return !at.Before(v.From) && !at.After(v.To)
}
