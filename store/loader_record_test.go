package store

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// TestLoaderRemembersRecordsWithoutBodies: the records a Loader keeps
// for its later checks are the stored records with the inline body cut
// to its codec byte (whole for content stored before), for documents
// with their own content and for content a second owner stores again,
// compressed or not.
func TestLoaderRemembersRecordsWithoutBodies(t *testing.T) {
	for _, comp := range []string{"", "zstd"} {
		t.Run("compression="+comp, func(t *testing.T) {
			s := openTest(t, &Options{NoSync: true, BlobCompression: comp})
			ctx := context.Background()
			l, err := s.NewLoader(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			kept := map[uint32][]byte{}
			for i := range 40 {
				owner := Public
				if i%4 == 3 { // the content of document i-1 again, another owner
					owner = "did:example:other"
				}
				n := i - i%4/3
				body := fmt.Sprintf(`{"n":%d,"text":"%s"}`, n, bytes.Repeat([]byte("ab"), 50+n))
				pd, err := s.Prepare(ctx, Document{Body: []byte(body), Owner: owner})
				if err != nil {
					t.Fatal(err)
				}
				ref, err := l.Add(pd)
				if err != nil {
					t.Fatal(err)
				}
				v, ok := l.mem.get(AppendDocKey(nil, ref.Num))
				if !ok {
					t.Fatalf("document %d: no record remembered", ref.Num)
				}
				kept[ref.Num] = bytes.Clone(v)
			}
			if err := l.Commit(); err != nil {
				t.Fatal(err)
			}
			shared := 0
			for num, got := range kept {
				v, found, err := s.kv.get(AppendDocKey(nil, num), nil)
				if err != nil || !found {
					t.Fatalf("document %d: record found %v, %v", num, found, err)
				}
				rec, err := decodeRecord(num, v)
				if err != nil {
					t.Fatal(err)
				}
				if rec.blob != num {
					shared++
				} else {
					rec.inline = rec.inline[:1]
				}
				if want := rec.append(nil, num); !bytes.Equal(got, want) {
					t.Errorf("document %d: remembered record\n%x, want\n%x", num, got, want)
				}
			}
			if shared != 10 {
				t.Errorf("%d documents share their content, want 10", shared)
			}
		})
	}
}
