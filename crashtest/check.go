package crashtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/store"
)

// QueryStats counts the planner-against-full-scan comparisons.
type QueryStats struct {
	Compared int // queries resolved both ways
	NonEmpty int // of those, how many had candidates: the comparisons were not vacuous
}

// Check runs every check of one cycle on s, reopened after the workload
// stopped, and settles the model's in-flight mutations: store.Verify and
// index.Check must pass, the store must hold what the model says, and
// queries random intents, resolved through the planner and by full scan,
// must answer identically. It returns the violations found; the error is
// for failures to read at all.
func Check(ctx context.Context, s *store.Store, ix *index.Index, m *Model, rng *rand.Rand, queries int, qs *QueryStats) ([]string, error) {
	var violations []string
	vrep, err := s.Verify(ctx)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if !vrep.OK() {
		violations = append(violations, fmt.Sprintf("cycle %d: store.Verify (aqlstore verify) found %d problems; expected none: %s",
			m.Cycle, vrep.Count, strings.Join(first(vrep.Problems, 5), "; ")))
	}
	crep, err := index.Check(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("index check: %w", err)
	}
	if !crep.OK() {
		violations = append(violations, fmt.Sprintf("cycle %d: index.Check (aqlstore check) found %d problems; expected none: %s",
			m.Cycle, crep.Count, strings.Join(first(crep.Problems, 5), "; ")))
	}
	v, err := m.Settle(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("settle: %w", err)
	}
	violations = append(violations, v...)
	if v, err = m.CheckStore(ctx, s); err != nil {
		return nil, fmt.Errorf("check store: %w", err)
	}
	violations = append(violations, v...)
	owners := m.owners()
	for range queries {
		q := randomQuery(rng, owners)
		v, err := m.compareQuery(ctx, s, ix, q, qs)
		if err != nil {
			return nil, err
		}
		violations = append(violations, v...)
	}
	return violations, nil
}

func first(s []string, n int) []string { return s[:min(n, len(s))] }

// owners returns the tenants and, when there are any, the first import
// owner, so that queries read as the owners imports create too.
func (m *Model) owners() []string {
	var imported []string
	for k := range m.live {
		if !slices.Contains(Tenants, k.owner) {
			imported = append(imported, k.owner)
		}
	}
	if len(imported) == 0 {
		return Tenants
	}
	return append(slices.Clone(Tenants), slices.Min(imported))
}

// randomIDs are the members of a response that differ between two
// resolutions of one query, besides the response id and signature.
var randomIDs = regexp.MustCompile(`"decision_id":"[^"]*"`)

// answer is a response as the client reads it, without its response id,
// signature and decision ids: the candidates, the rejections listed and
// the cursor.
func answer(r *query.Response) string {
	doc := map[string]any{}
	for k, v := range r.Document() {
		if k != "response_id" && k != "signature" {
			doc[k] = v
		}
	}
	return string(randomIDs.ReplaceAll(canon.AppendValue(nil, doc), nil))
}

// compareQuery resolves q through the planner and by full scan, walking up
// to three pages of a full_set: the candidates (ids, ranks, records,
// payloads), the rejections listed (RFC 0020 A.3, R3), the rejected
// totals and the cursors must be identical. A
// ranked_set's full scan must account for every document of q's kinds
// that q's reader may see, by the model's count: accepted plus rejected.
func (m *Model) compareQuery(ctx context.Context, s *store.Store, ix *index.Index, q querySpec, qs *QueryStats) ([]string, error) {
	in, err := q.intent()
	if err != nil {
		return nil, err
	}
	bad := func(page int, format string, args ...any) []string {
		return []string{fmt.Sprintf("cycle %d: query %s, page %d: %s", m.Cycle, q, page, fmt.Sprintf(format, args...))}
	}
	cursor := ""
	for page := range 3 {
		opts := func(ix *index.Index) *query.Options {
			return &query.Options{Signer: signer, At: queryAt, Kinds: q.Kinds, Principal: q.Principal,
				PageSize: q.PageSize, Cursor: cursor, Index: ix}
		}
		full, err := query.Resolve(ctx, s, in, opts(nil))
		if err != nil {
			return nil, fmt.Errorf("query %s by full scan: %w", q, err)
		}
		planned, err := query.Resolve(ctx, s, in, opts(ix))
		if err != nil {
			return nil, fmt.Errorf("query %s through the planner: %w", q, err)
		}
		if page == 0 {
			qs.Compared++
			if len(full.Candidates) > 0 {
				qs.NonEmpty++
			}
			if want := m.visible(q.Kinds, q.Principal); q.Policy == "ranked_set" && len(full.Candidates)+full.RejectedTotal != want {
				return bad(page, "the full scan accepted %d and rejected %d; expected %d documents in all",
					len(full.Candidates), full.RejectedTotal, want), nil
			}
		}
		if a, b := answer(full), answer(planned); a != b {
			return bad(page, "the planner and the full scan differ; expected identical responses, found\nfull scan: %.2000s\nplanner:   %.2000s", a, b), nil
		}
		if planned.RejectedTotal != full.RejectedTotal {
			return bad(page, "the planner rejected %d, the full scan %d; expected as many", planned.RejectedTotal, full.RejectedTotal), nil
		}
		if cursor = full.NextCursor; cursor == "" {
			break
		}
	}
	return nil, nil
}

// visible counts the live documents of kinds that principal may read:
// its own and the public ones.
func (m *Model) visible(kinds []canon.Kind, principal string) int {
	n := 0
	for k := range m.live {
		if slices.Contains(kinds, k.kind) && (k.owner == principal || k.owner == store.Public) {
			n++
		}
	}
	return n
}
