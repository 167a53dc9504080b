package query

import (
	"fmt"
	"strconv"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// qualityFailure returns why the candidate's signals fail the floor, or
// "". A declared signal the candidate lacks fails; latency_p99_ms is an
// upper bound, conformance_level compares within one family (L1 < L2 <
// L3), every other signal is a lower bound.
func qualityFailure(floor []aql.QualitySignal, sig *canon.Signals) string {
	for _, q := range floor {
		var have any
		if sig != nil {
			have = sig.Quality[q.Name]
		}
		if have == nil {
			return fmt.Sprintf("quality floor: %s is declared but the candidate has no %s signal", q.Name, q.Name)
		}
		if why := signalFailure(q, have); why != "" {
			return "quality floor: " + why
		}
	}
	return ""
}

func signalFailure(q aql.QualitySignal, have any) string {
	if q.Name == "conformance_level" {
		return levelFailure(q.Value, have)
	}
	want, okW := aql.ParseDecimal(q.Value)
	got, okG := aql.ParseDecimal(have)
	if !okW || !okG {
		return fmt.Sprintf("%s %v is not comparable with %v", q.Name, have, q.Value)
	}
	if q.Name == "latency_p99_ms" {
		if got.Cmp(want) > 0 {
			return fmt.Sprintf("latency_p99_ms %s is above the ceiling %s", got.Text('f'), want.Text('f'))
		}
		return ""
	}
	if got.Cmp(want) < 0 {
		return fmt.Sprintf("%s %s is below the floor %s", q.Name, got.Text('f'), want.Text('f'))
	}
	return ""
}

// levelFailure compares conformance levels like L2 within one family.
func levelFailure(want, have any) string {
	w, _ := want.(string)
	h, _ := have.(string)
	wf, wn, okW := splitLevel(w)
	hf, hn, okH := splitLevel(h)
	switch {
	case !okW || !okH:
		return fmt.Sprintf("conformance_level %q is not comparable with %q", h, w)
	case wf != hf:
		return fmt.Sprintf("conformance_level %s is of another family than %s", h, w)
	case hn < wn:
		return fmt.Sprintf("conformance_level %s is below %s", h, w)
	}
	return ""
}

// splitLevel splits "L2" into its family "L" and rank 2.
func splitLevel(s string) (string, int, bool) {
	i := 0
	for i < len(s) && (s[i] < '0' || s[i] > '9') {
		i++
	}
	n, err := strconv.Atoi(s[i:])
	return s[:i], n, i > 0 && err == nil
}
