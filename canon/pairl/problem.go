package pairl

import (
	"fmt"
	"sort"
)

// Mode selects how strictly a message is read and validated (§10, §12.2).
// The zero value is Loose.
type Mode uint8

const (
	// Loose reports what the spec leaves to best effort as warnings and
	// reads later PAIRL constructs (v1.2+) where that is cheap.
	Loose Mode = iota
	// Strict turns those warnings into errors and rejects every construct
	// PAIRL v1.1 does not define.
	Strict
)

// String returns "loose" or "strict".
func (md Mode) String() string {
	if md == Strict {
		return "strict"
	}
	return "loose"
}

// Severity says whether a Problem rejects the message.
type Severity uint8

const (
	// SeverityWarning is logged; the message stays usable.
	SeverityWarning Severity = iota + 1
	// SeverityError rejects the message.
	SeverityError
)

// String returns "warning" or "error".
func (s Severity) String() string {
	if s == SeverityError {
		return "error"
	}
	return "warning"
}

// Problem codes. V1–V8 are the spec's validation rules (§10); the others
// name the syntax, limit and later-version categories of §12.1, which the
// spec leaves unnamed.
const (
	CodeV1 = "V1" // no new facts in intents (heuristic)
	CodeV2 = "V2" // #evid completeness
	CodeV3 = "V3" // ref format
	CodeV4 = "V4" // @parent/@deps resolvable (strict_refs)
	CodeV5 = "V5" // @hash matches the canonical bytes
	CodeV6 = "V6" // @rid unique within the message
	CodeV7 = "V7" // no cycle through @parent/@deps
	CodeV8 = "V8" // spend within @budget

	CodeHeader   = "HEADER"   // malformed, missing or repeated header
	CodeBlank    = "BLANK"    // §8.2 blank-line rule
	CodeEOL      = "EOL"      // CR LF line endings (§8.5 says LF)
	CodeRecord   = "RECORD"   // malformed or unknown record
	CodeIntent   = "INTENT"   // malformed intent name or parameter (§4)
	CodeRID      = "RID"      // @rid outside 1–8 ASCII letters and digits (§3.2)
	CodeLater    = "LATER"    // construct from a later PAIRL version (v1.2+)
	CodeLimit    = "LIMIT"    // size limit crossed (Limits, #rule max_*)
	CodeEncoding = "UTF8"     // input is not UTF-8
	CodeBudget   = "BUDGET"   // economic data that cannot be compared (units)
	CodeThread   = "THREAD"   // thread-level problem (repeated @mid)
	CodeQuota    = "QUOTA"    // inconsistent #quota numbers
	codeInternal = "INTERNAL" // nil message handed to a function
)

// Problem is one structured finding (§12.4): what rule, where, what is
// wrong and how to fix it.
type Problem struct {
	Code        string   // CodeV1…CodeV8 or another Code* constant
	Line        int      // 1-based line of the input that was parsed; 0 = none
	Description string   // what is wrong
	Fix         string   // suggested fix, may be empty
	Severity    Severity // error rejects the message, warning does not
	MID         string   // @mid of the message it concerns (set by ValidateThread)
}

// String formats the problem on one line, for logs and test output.
func (p Problem) String() string {
	s := fmt.Sprintf("line %d: %s %s: %s", p.Line, p.Severity, p.Code, p.Description)
	if p.MID != "" {
		s = p.MID + " " + s
	}
	if p.Fix != "" {
		s += " (fix: " + p.Fix + ")"
	}
	return s
}

// HasErrors reports whether any problem in ps is an error.
func HasErrors(ps []Problem) bool {
	for i := range ps {
		if ps[i].Severity == SeverityError {
			return true
		}
	}
	return false
}

// class is how a finding's severity depends on the mode. Findings are
// stored with their class, not a severity, so one parse serves validation
// in either mode.
type class uint8

const (
	hard class = iota // an error in both modes
	soft              // an error in strict mode, a warning in loose mode
	info              // a warning in both modes
)

func (c class) severity(md Mode) Severity {
	if c == hard || (c == soft && md == Strict) {
		return SeverityError
	}
	return SeverityWarning
}

// finding is a problem before a mode gives it a severity.
type finding struct {
	code, desc, fix string
	line            int
	cls             class
}

func (f finding) problem(md Mode) Problem {
	return Problem{Code: f.code, Line: f.line, Description: f.desc, Fix: f.fix,
		Severity: f.cls.severity(md)}
}

// findings collects findings; its methods keep the call sites one line long.
type findings []finding

func (fs *findings) add(cls class, line int, code, desc, fix string) {
	*fs = append(*fs, finding{code: code, desc: desc, fix: fix, line: line, cls: cls})
}

func (fs findings) problems(md Mode) []Problem {
	ps := make([]Problem, len(fs))
	for i, f := range fs {
		ps[i] = f.problem(md)
	}
	return ps
}

// sortProblems orders problems by line, keeping the order of discovery
// within a line, so reports read top to bottom like the message.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
}
