package crashtest

import "errors"

// Sentinel errors, checked with errors.Is.
var (
	// ErrProtocol means the workload's event log is malformed: a line
	// that is not an event, an acknowledgement of a mutation that never
	// began, an operation begun twice. The message names the line.
	ErrProtocol = errors.New("crashtest: malformed event log")
	// ErrViolation means the store broke a promise after a crash: a lost
	// acknowledged write, a half-applied mutation, a store that does not
	// verify, a planner that disagrees with the full scan. The message
	// names the cycle, the mutation, what was expected and what was found.
	ErrViolation = errors.New("crashtest: consistency violation")
)
