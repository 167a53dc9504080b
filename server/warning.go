package server

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
)

// headerWarning is the response header that carries query.Warnings: the
// signed IntentResponse may hold no member its schema does not name, so
// a warning travels beside it, one header per warning.
const headerWarning = "AQL-Warning"

// maxWarningHeaders bounds the warnings one response carries.
const maxWarningHeaders = 8

// warnPaths adds an AQL-Warning header for each path of in that no
// document the reader may see has, e.g.
//
//	AQL-Warning: at /constraints/path: no visible document has "/categroy"; did you mean "/category"?
//
// A failure to check is logged, never answered: the response stands.
func (s *Server) warnPaths(w http.ResponseWriter, in *aql.Intent, plan *query.Plan, resp *query.Response) {
	ws, err := query.Warnings(s.cfg.Index, in, plan, resp)
	if err != nil {
		s.cfg.Logger.Error("check intent paths", "err", err)
	}
	for _, wn := range ws[:min(len(ws), maxWarningHeaders)] {
		w.Header().Add(headerWarning, asciiHeader(wn.String()))
	}
}

// asciiHeader escapes what is not printable ASCII as \uXXXX, so that a
// path with any characters makes a valid, one-line header value.
func asciiHeader(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
