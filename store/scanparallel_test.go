package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// TestScanKindsParallel: test sees the visible documents of the kinds
// asked for, keep gets their verdicts in ascending number, and a document
// keep accepts is yielded whatever its verdict (one that failed is read
// again), across chunks and with several workers; one passed with
// PassedHead is yielded from its record alone, without a body.
func TestScanKindsParallel(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	var batch []Document
	for i := range 3*scanChunk + 10 {
		owner, kind := Public, canon.KindJSON
		switch i % 7 {
		case 3:
			owner = "did:key:other"
		case 5:
			kind = canon.KindOffer
		}
		body := fmt.Sprintf(`{"i":%d,"offer_id":"o%d"}`, i, i)
		d := Document{Body: []byte(body), Owner: owner, Kind: kind}
		if i%4 == 1 {
			d.Signals = &canon.Signals{Score: canon.Number(fmt.Sprint(i % 10))}
		}
		batch = append(batch, d)
	}
	// Content stored twice: the second document's record has no inline body.
	batch = append(batch, Document{Body: []byte(`{"i":1,"offer_id":"o1"}`), Owner: "did:key:me", Kind: canon.KindJSON})
	if _, err := s.PutBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	var want []string
	full := map[uint32]*StoredDoc{}
	for doc, err := range s.ScanKinds(ctx, []canon.Kind{canon.KindJSON}) {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("#%d", doc.Num))
		full[doc.Num] = doc
	}
	passes := func(b []byte) bool { return strings.Contains(string(b), `"i":1`) } // i = 1, 10..19, 100..199, 1000...
	for _, workers := range []int{1, 3} {
		var order, got []string
		var last uint32
		test := func(w int, num uint32, b []byte) Verdict {
			if w < 0 || w >= workers {
				t.Errorf("worker %d of %d", w, workers)
			}
			switch {
			case !passes(b):
				return Failed
			case num%3 == 0:
				return PassedHead
			}
			return Passed
		}
		heads := 0
		keep := func(num uint32, v Verdict) bool {
			if num <= last {
				t.Errorf("keep got #%d after #%d", num, last)
			}
			last = num
			order = append(order, fmt.Sprintf("#%d", num))
			return v == Passed || v == PassedHead || num%2 == 0 // and every even one, failed or not
		}
		for doc, err := range s.ScanKindsParallel(ctx, []canon.Kind{canon.KindJSON}, workers, test, keep) {
			if err != nil {
				t.Fatal(err)
			}
			f := full[doc.Num]
			if doc.Body == nil {
				heads++
				if !passes(f.Body) || doc.Num%3 != 0 {
					t.Errorf("#%d yielded without a body, not passed with PassedHead", doc.Num)
				}
				if doc.Ref != f.Ref || doc.NaturalKey != f.NaturalKey || doc.Seq != f.Seq || doc.View != nil ||
					fmt.Sprint(doc.Signals) != fmt.Sprint(f.Signals) {
					t.Errorf("#%d from its record's head: %+v, want the record of %+v", doc.Num, doc, f)
				}
			} else if !passes(doc.Body) && doc.Num%2 != 0 {
				t.Errorf("#%d yielded, neither passed nor kept", doc.Num)
			}
			got = append(got, fmt.Sprintf("#%d", doc.Num))
		}
		if strings.Join(order, " ") != strings.Join(want, " ") {
			t.Errorf("%d workers: keep saw %d documents, want the %d ScanKinds yields", workers, len(order), len(want))
		}
		if len(got) == 0 || len(got) >= len(want) {
			t.Errorf("%d workers: %d of %d yielded", workers, len(got), len(want))
		}
		if heads == 0 {
			t.Errorf("%d workers: no document yielded from its record's head", workers)
		}
	}
}
