package pairl

import "fmt"

// Default limits. MaxBytes and MaxRecords are the §14.1 recommendations
// (1 MB, 1000 records); MaxLineBytes bounds the work one record can cost.
const (
	DefaultMaxBytes     = 1 << 20
	DefaultMaxLineBytes = 64 << 10
	DefaultMaxRecords   = 1000
	// DefaultMaxWalk bounds how many messages V4/V7/V8 visit through a
	// Thread, so a hostile or corrupt store cannot make validation unbounded.
	DefaultMaxWalk = 100000
)

// Limits bound what Parse accepts. A zero field means its default. Inputs
// over a limit are refused with an *Error wrapping ErrTooLarge,
// ErrLineTooLong or ErrTooManyRecords that names the line.
type Limits struct {
	MaxBytes     int // whole input, in bytes
	MaxLineBytes int // one line or one logical record, in bytes
	MaxRecords   int // body records (columnar rows count one each)
}

// EnsureDefaults fills zero fields with the defaults and returns l. A nil
// receiver returns a new Limits holding the defaults.
func (l *Limits) EnsureDefaults() *Limits {
	if l == nil {
		l = &Limits{}
	}
	if l.MaxBytes == 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxLineBytes == 0 {
		l.MaxLineBytes = DefaultMaxLineBytes
	}
	if l.MaxRecords == 0 {
		l.MaxRecords = DefaultMaxRecords
	}
	return l
}

// Validate reports a negative limit as an error wrapping ErrLimits.
func (l *Limits) Validate() error {
	if l == nil {
		return nil
	}
	if l.MaxBytes < 0 || l.MaxLineBytes < 0 || l.MaxRecords < 0 {
		return fmt.Errorf("%w: negative value in %+v", ErrLimits, *l)
	}
	return nil
}

// limitsOrDefault copies lim so that filling defaults never writes to the
// caller's value.
func limitsOrDefault(lim *Limits) Limits {
	var l Limits
	if lim != nil {
		l = *lim
	}
	return *l.EnsureDefaults()
}
