package index

import (
	"context"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/store"
)

// CheckReport is what Check found.
type CheckReport struct {
	Documents int      // documents re-derived
	Postings  int      // posting lists compared
	Problems  []string // the first 100, each naming the posting and the documents
	Count     int      // every problem
}

// OK reports whether the postings agree with the documents.
func (r *CheckReport) OK() bool { return r.Count == 0 }

func (r *CheckReport) add(format string, args ...any) {
	r.Count++
	if len(r.Problems) < 100 {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// Check re-derives every posting from the documents and compares it with
// the stored one. It holds the derived postings in memory.
func Check(ctx context.Context, s *store.Store) (*CheckReport, error) {
	ix := New()
	if err := ix.Load(s.IndexReader()); err != nil {
		return nil, err
	}
	rep := &CheckReport{}
	err := s.EachDocument(ctx, func(num uint32, doc store.IndexInput) error {
		rep.Documents++
		return ix.Add(num, doc)
	})
	if err != nil {
		return nil, err
	}
	for p := range ix.fresh {
		rep.add("path %s is in documents but not in the dictionary", p)
	}
	if err := checkDictionary(s.IndexReader(), ix, rep); err != nil {
		return nil, err
	}
	if err := compareStored(s, ix, rep); err != nil {
		return nil, err
	}
	if err := compareRanks(s.IndexReader(), ix.ranks, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// compareRanks checks the stored rank order against the keys the
// documents give (want, consumed): one key per document, no other.
func compareRanks(r *store.IndexReader, want rankKeys, rep *CheckReport) error {
	err := r.Scan(appendFamily(nil, famRank), appendFamily(nil, famRank+1), func(key, _ []byte) error {
		if _, ok := want[string(key)]; ok {
			delete(want, string(key))
			return nil
		}
		num, _ := rankNum(key)
		rep.add("rank key %x (document %d) matches no document's score and candidate id", key, num)
		return nil
	})
	for key := range want {
		num, _ := rankNum([]byte(key))
		rep.add("document %d has no rank key (want %x)", num, key)
	}
	return err
}

// postingFamilies are the families whose values are bitmaps.
var postingFamilies = []byte{famExists, famEq, famRange, famBucket, famTyped, famMulti, famGram, famShort, famLong, famNoGram, famKind, famOwner, famAll}

func compareStored(s *store.Store, ix *Index, rep *CheckReport) error {
	want := make(map[string]*roaring.Bitmap, ix.adds.len())
	ix.adds.each(func(k string, p *posting) { want[k] = p.bitmap() })
	r := s.IndexReader()
	for _, fam := range postingFamilies {
		err := r.Scan(appendFamily(nil, fam), appendFamily(nil, fam+1), func(key, value []byte) error {
			got, err := store.DecodeBitmap(value)
			if err != nil {
				return err
			}
			checkPathID(rep, ix, key)
			comparePosting(rep, key, got, want[string(key)])
			delete(want, string(key))
			return nil
		})
		if err != nil {
			return err
		}
	}
	for key, bm := range want {
		comparePosting(rep, []byte(key), roaring.New(), bm)
	}
	return nil
}

func comparePosting(rep *CheckReport, key []byte, got, want *roaring.Bitmap) {
	rep.Postings++
	if want == nil {
		want = roaring.New()
	}
	if extra := roaring.AndNot(got, want); !extra.IsEmpty() {
		rep.add("posting %q lists documents %v that do not have it", key, extra)
	}
	if missing := roaring.AndNot(want, got); !missing.IsEmpty() {
		rep.add("posting %q misses documents %v", key, missing)
	}
}

// Reindex rebuilds the index of the store in dir from its documents; see
// store.Reindex. The store must not be open elsewhere.
func Reindex(ctx context.Context, dir string, opts *store.Options, batchDocs int, progress func(done int)) error {
	return store.Reindex(ctx, dir, opts, New(), batchDocs, progress)
}
