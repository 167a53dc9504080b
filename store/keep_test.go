package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/aqlstore/aqlstore/canon"
)

// TestKeep: ScanKindsKeeping and FetchKeeping ask keep about the
// documents the reader sees, of the kinds asked for, with their
// canonical bytes, and yield only those it accepts; the others (another
// tenant's, another kind) are never shown to it.
func TestKeep(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	put := func(body, owner string, kind canon.Kind) {
		if _, err := s.Put(ctx, Document{Body: []byte(body), Owner: owner, Kind: kind}); err != nil {
			t.Fatal(err)
		}
	}
	put(`{"n":1,"keep":true}`, Public, canon.KindJSON)
	put(`{"n":2}`, Public, canon.KindJSON)
	put(`{"n":3,"keep":true}`, "did:key:other", canon.KindJSON)
	put(`{"n":4,"keep":true}`, "did:key:me", canon.KindJSON)
	put(`{"n":5,"keep":true,"node_id":"k5"}`, Public, canon.KindKnowledge)
	put(`{"n":1,"keep":true}`, "did:key:me", canon.KindJSON) // the same content as #1, stored again: a shared blob
	me := WithPrincipal(ctx, "did:key:me")
	for name, read := range map[string]func(Keep) func(func(*StoredDoc, error) bool){
		"scan": func(k Keep) func(func(*StoredDoc, error) bool) {
			return s.ScanKindsKeeping(me, []canon.Kind{canon.KindJSON}, k)
		},
		"fetch": func(k Keep) func(func(*StoredDoc, error) bool) {
			return s.FetchKeeping(me, roaring.BitmapOf(1, 2, 3, 4, 6), false, k)
		},
		"fetch sequential": func(k Keep) func(func(*StoredDoc, error) bool) {
			return s.FetchKeeping(me, roaring.BitmapOf(1, 2, 3, 4, 6), true, k)
		},
	} {
		t.Run(name, func(t *testing.T) {
			var asked, got []string
			keep := func(num uint32, b []byte) bool {
				asked = append(asked, fmt.Sprintf("#%d %s", num, b))
				return strings.Contains(string(b), "keep")
			}
			for doc, err := range read(keep) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("#%d", doc.Num))
			}
			wantAsked := `#1 {"keep":true,"n":1}; #2 {"n":2}; #4 {"keep":true,"n":4}; #6 {"keep":true,"n":1}`
			if a := strings.Join(asked, "; "); a != wantAsked {
				t.Errorf("asked about %s\nwant %s", a, wantAsked)
			}
			if g := strings.Join(got, " "); g != "#1 #4 #6" {
				t.Errorf("yielded %s, want #1 #4 #6", g)
			}
		})
	}
}
