package store

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/canon"
)

// TestColumnsMatchRecords puts and deletes random documents (with and
// without natural keys and scores, given in the body or through the API,
// identical content under several owners), reopening the store now and then, and checks after every step
// that the in-memory columns say what the records say, and that Headers
// shows each reader what Fetch shows it.
func TestColumnsMatchRecords(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dir, err := os.MkdirTemp("", "aqlstore-columns-*")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		opts := &Options{NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20}
		s, err := Open(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { s.Close() }()
		owners := []string{Public, "did:key:alice", "did:key:bob"}
		var refs []Ref
		for step := rapid.IntRange(1, 40).Draw(t, "steps"); step > 0; step-- {
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op == 5: // a bulk load of a few documents, as put and import make
				// Draw everything first: a draw that panics while the
				// loader holds the writer lock would hang the shrinker.
				owner := rapid.SampledFrom(owners).Draw(t, "owner")
				run := rapid.IntRange(1, 3).Draw(t, "run")
				bodies := rapid.SliceOfNDistinct(rapid.IntRange(0, 11), 1, 6, rapid.ID[int]).Draw(t, "loaded")
				ctx := WithPrincipal(context.Background(), owner)
				l, err := s.NewLoader(ctx, &LoadOptions{RunDocs: run})
				if err != nil {
					t.Fatal(err)
				}
				added := refs
				for _, i := range bodies {
					pd, err := s.Prepare(ctx, Document{Body: []byte(columnTestBody(i))})
					if err == nil {
						var ref Ref
						if ref, err = l.Add(pd); err == nil {
							added = append(added, ref)
							continue
						}
					}
					l.Abort() // the same natural key under the same owner: nothing stored
					if !strings.Contains(err.Error(), "conflict") && !strings.Contains(err.Error(), "already") {
						t.Fatalf("load %d as %s: %v", i, owner, err)
					}
					l = nil
					break
				}
				if l != nil {
					if err := l.Commit(); err != nil {
						t.Fatal(err)
					}
					refs = added
				}
			case op < 6:
				owner := rapid.SampledFrom(owners).Draw(t, "owner")
				body := columnTestBody(rapid.IntRange(0, 11).Draw(t, "body"))
				doc := Document{Body: []byte(body)}
				if rapid.Bool().Draw(t, "signals") { // given through the API, as written
					doc.Signals = &canon.Signals{Score: rapid.SampledFrom([]canon.Number{"1.0", "2.50", "-0.5", "1e2"}).Draw(t, "score")}
				}
				ref, err := s.Put(WithPrincipal(context.Background(), owner), doc)
				if err != nil {
					if strings.Contains(err.Error(), "conflict") || strings.Contains(err.Error(), "already") {
						continue // the same natural key under the same owner
					}
					t.Fatalf("put %s as %s: %v", body, owner, err)
				}
				refs = append(refs, ref)
			case op < 9 && len(refs) > 0:
				i := rapid.IntRange(0, len(refs)-1).Draw(t, "victim")
				err := s.Delete(WithPrincipal(context.Background(), refs[i].Owner), refs[i])
				if err != nil && err != ErrNotFound {
					t.Fatal(err)
				}
			default:
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if s, err = Open(dir, opts); err != nil {
					t.Fatal(err)
				}
			}
			checkColumns(t, s, owners)
		}
	})
}

// columnTestBody is one of a few documents: candidates with scores,
// knowledge nodes with natural keys, generic JSON without.
func columnTestBody(i int) string {
	switch i % 3 {
	case 0:
		return fmt.Sprintf(`{"id":"c-%d","score":%d.%d,"record":{"n":%d}}`, i, i%4, i, i)
	case 1:
		return fmt.Sprintf(`{"node_id":"n-%d"}`, i)
	}
	return fmt.Sprintf(`{"generic":%d}`, i)
}

func checkColumns(t *rapid.T, s *Store, owners []string) {
	cols := s.Columns()
	s.mu.Lock()
	next := s.nextNum
	s.mu.Unlock()
	all := roaring.New()
	for num := uint32(1); num < next+2; num++ {
		all.Add(num)
		rec, found, err := readRecord(s.kv.get, num)
		if err != nil {
			t.Fatal(err)
		}
		if !found {
			if cols.Has(num) || cols.Kind(num) != "" || cols.Owner(num) != "" || cols.CandidateID(num) != "" || cols.Score(num) != "" {
				t.Fatalf("document %d has no record, but columns %q %q %q %q", num,
					cols.Kind(num), cols.Owner(num), cols.CandidateID(num), cols.Score(num))
			}
			continue
		}
		sig, err := rec.decodeSignals()
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprint(rec.kind, rec.owner, candidateID(rec.naturalKey, rec.id), scoreOf(sig))
		got := fmt.Sprint(cols.Kind(num), cols.Owner(num), cols.CandidateID(num), cols.Score(num))
		if !cols.Has(num) || got != want {
			t.Fatalf("document %d: columns %s, record %s", num, got, want)
		}
	}
	for _, owner := range owners {
		ctx := WithPrincipal(context.Background(), owner)
		var fetched, headed []string
		for doc, err := range s.Fetch(ctx, all, false) {
			if err != nil {
				t.Fatal(err)
			}
			fetched = append(fetched, fmt.Sprint(doc.Num, candidateID(doc.NaturalKey, doc.ID), scoreOf(doc.Signals)))
		}
		for h, err := range s.Headers(ctx, all) {
			if err != nil {
				t.Fatal(err)
			}
			headed = append(headed, fmt.Sprint(h.Num, h.CandidateID, h.Score))
		}
		if fmt.Sprint(fetched) != fmt.Sprint(headed) {
			t.Fatalf("as %s: Fetch %v, Headers %v", owner, fetched, headed)
		}
	}
}

// TestColumnsPublishWholeCommits runs writers and readers at once (run it
// with -race): a reader's columns hold every document of a batch or none,
// and each entry whole.
func TestColumnsPublishWholeCommits(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	const batches = 150
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for i := range batches {
			pair := []Document{
				{Body: []byte(fmt.Sprintf(`{"id":"p-%d-a","score":%d,"record":{"i":%d}}`, i, i, i))},
				{Body: []byte(fmt.Sprintf(`{"id":"p-%d-b","score":%d,"record":{"i":%d}}`, i, i, i))},
			}
			if _, err := s.PutBatch(ctx, pair); err != nil {
				t.Error(err)
				return
			}
			single, err := s.Put(ctx, Document{Body: []byte(fmt.Sprintf(`{"node_id":"s-%d"}`, i))})
			if err != nil {
				t.Error(err)
				return
			}
			if i%2 == 0 {
				if err := s.Delete(ctx, single); err != nil {
					t.Error(err)
					return
				}
			}
		}
	})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := checkWholeCommits(s.Columns()); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := checkWholeCommits(s.Columns()); err != nil {
		t.Fatal(err)
	}
	if n := countDocs(s.Columns(), 3*batches+1); n != 2*batches+batches/2 {
		t.Fatalf("%d documents in the columns, want %d", n, 2*batches+batches/2)
	}
}

// TestColumnsHoldNoPointerPerDocument: a chunk's per-document arrays
// hold numbers only, so that the garbage collector marks a chunk as one
// object, not a million strings at a million documents.
func TestColumnsHoldNoPointerPerDocument(t *testing.T) {
	ct := reflect.TypeFor[chunk]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		if f.Type.Kind() != reflect.Array {
			continue
		}
		switch f.Type.Elem().Kind() {
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			t.Errorf("chunk.%s holds %s per document: a pointer for the collector to mark", f.Name, f.Type.Elem())
		}
	}
}

// TestColumnsKeepWhatReadersRead: the scores and candidate ids a reader
// got, and the columns it holds, stay as they were while later commits
// replace and delete entries of the same chunks.
func TestColumnsKeepWhatReadersRead(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	var refs []Ref
	for i := range 20 {
		refs = append(refs, mustPut(t, s, ctx, fmt.Sprintf(`{"id":"k-%d","score":%d,"record":{}}`, i, i)))
	}
	old := s.Columns()
	ids, scores := map[uint32]string{}, map[uint32]canon.Number{}
	for _, r := range refs {
		ids[r.Num], scores[r.Num] = old.CandidateID(r.Num), old.Score(r.Num)
	}
	for i, r := range refs {
		if i%2 == 0 {
			if err := s.Delete(ctx, r); err != nil {
				t.Fatal(err)
			}
			continue
		}
		mustPut(t, s, ctx, fmt.Sprintf(`{"id":"later-%d-with-a-longer-id","score":%d,"record":{}}`, i, 1000+i))
	}
	for i, r := range refs {
		want := fmt.Sprintf("k-%d", i)
		if ids[r.Num] != want || scores[r.Num] != canon.Number(strconv.Itoa(i)) {
			t.Errorf("document %d: read %q score %q before the commits, now %q %q", r.Num, want, strconv.Itoa(i), ids[r.Num], scores[r.Num])
		}
		if old.CandidateID(r.Num) != want || old.Score(r.Num) != canon.Number(strconv.Itoa(i)) {
			t.Errorf("document %d: the old columns say %q %q, want %q %d", r.Num, old.CandidateID(r.Num), old.Score(r.Num), want, i)
		}
		if now := s.Columns(); (i%2 == 0) == now.Has(r.Num) {
			t.Errorf("document %d: in the new columns %v, want %v", r.Num, now.Has(r.Num), i%2 != 0)
		}
	}
}

// TestColumnChunkClone: a copy of a chunk reads as the chunk does, and
// once most of its text is dead the copy keeps only the live entries.
func TestColumnChunkClone(t *testing.T) {
	ch := new(chunk)
	for i := range uint32(columnChunk) {
		ch.kind[i] = 1
		ch.put(i, []byte(strconv.Itoa(int(i))), []byte(fmt.Sprintf("cand-%d", i)))
	}
	check := func(c *chunk, live func(uint32) bool) {
		t.Helper()
		for i := range uint32(columnChunk) {
			score, cand := c.str(c.at[i], c.mid[i]), c.str(c.mid[i], c.end[i])
			if want := live(i); want && (score != strconv.Itoa(int(i)) || cand != fmt.Sprintf("cand-%d", i)) {
				t.Fatalf("entry %d: %q %q", i, score, cand)
			} else if !want && (score != "" || cand != "") {
				t.Fatalf("entry %d, dropped: %q %q", i, score, cand)
			}
		}
	}
	all := func(uint32) bool { return true }
	check(ch.clone(), all)
	size := len(ch.text)
	for i := range uint32(columnChunk) {
		if i%4 != 0 {
			ch.drop(i)
			ch.kind[i] = 0
		}
	}
	fresh := ch.clone()
	check(fresh, func(i uint32) bool { return i%4 == 0 })
	if len(fresh.text) >= size/2 || fresh.dead != 0 {
		t.Fatalf("the copy keeps %d bytes of text (%d dead) of %d, want the live quarter", len(fresh.text), fresh.dead, size)
	}
}

// checkWholeCommits checks the pairs TestColumnsPublishWholeCommits puts:
// both halves present or neither, each with the score its id names.
func checkWholeCommits(c *Columns) error {
	halves := map[string]int{}
	for num := uint32(1); num < uint32(len(c.chunks))*columnChunk; num++ {
		if !c.Has(num) {
			continue
		}
		id := c.CandidateID(num)
		if c.Kind(num) == "" || c.Owner(num) != Public || id == "" {
			return fmt.Errorf("document %d: half an entry: %q %q %q", num, c.Kind(num), c.Owner(num), id)
		}
		if !strings.HasPrefix(id, "p-") {
			continue
		}
		i, half, _ := strings.Cut(strings.TrimPrefix(id, "p-"), "-")
		if want := canon.Number(i); c.Score(num) != want {
			return fmt.Errorf("document %d (%s): score %q, want %q", num, id, c.Score(num), want)
		}
		halves[i] += map[string]int{"a": 1, "b": 2}[half]
	}
	for i, h := range halves {
		if h != 3 {
			n, _ := strconv.Atoi(i)
			return fmt.Errorf("pair %d: only half of its batch is visible", n)
		}
	}
	return nil
}

func countDocs(c *Columns, below uint32) int {
	n := 0
	for num := uint32(1); num < below; num++ {
		if c.Has(num) {
			n++
		}
	}
	return n
}

// TestVerifyChecksColumns: Verify reports a column entry that disagrees
// with its record, one that is missing, and one without a record.
func TestVerifyChecksColumns(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	a := mustPut(t, s, ctx, `{"node_id":"a"}`)
	b := mustPut(t, s, ctx, `{"node_id":"b"}`)
	verifyOK(t, s)
	bad := s.kv.newBatch()
	wrong := column{kind: canon.KindKnowledge, owner: Public, cand: "z"}
	_ = bad.set(AppendColumnKey(nil, a.Num), appendColumn(nil, &wrong))
	_ = bad.del(AppendColumnKey(nil, b.Num))
	_ = bad.set(AppendColumnKey(nil, 99), appendColumn(nil, &wrong))
	if err := s.kv.apply(bad, true); err != nil {
		t.Fatal(err)
	}
	_ = bad.wait()
	rep, err := s.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(rep.Problems, "\n")
	for _, want := range []string{
		fmt.Sprintf("document %d: column entry disagrees with the record", a.Num),
		fmt.Sprintf("document %d: column entry missing", b.Num),
		"document 99: column entry without a record",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("Verify does not say %q:\n%s", want, joined)
		}
	}
}

// TestColumnKeyName: damage to a column entry is reported by document.
func TestColumnKeyName(t *testing.T) {
	if got := keyName(AppendColumnKey(nil, 7)); got != "column entry of document 7" {
		t.Fatalf("keyName = %q", got)
	}
}
