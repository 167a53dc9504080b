package canon

import "regexp"

// packagePrefix is a library package's prefix at the start of an error
// message or of one wrapped in it ("open x: store: not found"). The
// libraries keep them for embedders' logs (STYLE.md); a person reading a
// CLI message or an HTTP problem needs the message, not which package
// made it.
var packagePrefix = regexp.MustCompile(`(^|: )(?:canon|store|index|query|aql|eval|sign|pairl|aidp|execintent|server|aqlstore): `)

// WithoutPackagePrefixes returns msg without the package prefixes of
// this module's libraries, wherever a wrapped error put one.
func WithoutPackagePrefixes(msg string) string {
	for {
		out := packagePrefix.ReplaceAllString(msg, "$1")
		if out == msg {
			return out
		}
		msg = out
	}
}
