package canon

import (
	"fmt"
	"strings"
)

// JoinProblems formats a list of problems the way the message packages
// report them: one problem as its own Error, several as
// "pkg: N problems:" with each on its own indented line, without its
// "pkg: " prefix.
func JoinProblems[E error](pkg string, errs []E) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d problems:", pkg, len(errs))
	for _, e := range errs {
		b.WriteString("\n\t")
		b.WriteString(strings.TrimPrefix(e.Error(), pkg+": "))
	}
	return b.String()
}

// ProblemErrors returns errs as a []error, for an Unwrap() []error method,
// so that errors.Is and errors.As look at each problem.
func ProblemErrors[E error](errs []E) []error {
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return out
}
