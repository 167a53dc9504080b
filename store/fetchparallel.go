package store

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// fetchChunk is how many candidates one worker of FetchParallel reads and
// works on at a time: enough to amortize positioning its cursors, few
// enough that the workers share a fetch evenly and the consumer gets the
// first results early.
const fetchChunk = 256

// FetchParallel reads the documents of nums that the context's principal
// may see, as Fetch does and as of one instant, on up to workers
// goroutines (0: GOMAXPROCS), each taking chunks of consecutive
// candidates with its own cursors; work runs on the goroutine that read
// the document, with that goroutine's index (0 ≤ w < workers), so that
// it may keep per-worker state. The results are yielded in ascending
// document number, as Fetch yields documents, whatever order the workers
// finish in: the answer does not depend on the scheduling. Stop
// iterating to end the fetch early; the first error (a read, or one work
// returned) ends it with a final (zero, err) pair. work is lent its
// document: the Doc and every byte it holds are valid only until work
// returns (the worker reads its next document into the same buffer), so a
// result that keeps any of them holds a copy.
func FetchParallel[T any](ctx context.Context, s *Store, nums *roaring.Bitmap, workers int,
	work func(w int, doc *StoredDoc) (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if workers <= 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		chunks := splitChunks(nums, chunkSize(nums.GetCardinality(), workers))
		workers = max(1, min(workers, len(chunks)))
		err := s.readView(func(v *view) error {
			principal := s.readerOf(ctx)
			type state struct {
				recs *cursor
				bs   *bodies
				l    *lender
			}
			states := make([]state, workers) // each worker's cursors, opened by its first chunk
			defer func() {
				for _, st := range states {
					if st.recs != nil {
						_ = st.recs.close()
						st.bs.close()
					}
				}
			}()
			return runChunks(ctx, len(chunks), workers, func(ctx context.Context, w, i int) ([]T, error) {
				st := &states[w]
				if st.recs == nil {
					recs, err := v.cursor([]byte{prefixDoc}, prefixEnd([]byte{prefixDoc}))
					if err != nil {
						return nil, err
					}
					st.recs, st.bs, st.l = recs, &bodies{v: v}, new(lender)
				}
				return readChunk(ctx, principal, st.recs, st.bs, st.l, chunks[i], w, work)
			}, yield)
		})
		if err != nil && err != errStopScan {
			yield(zero, err)
		}
	}
}

// fetchChunkMin is the fewest candidates a chunk of FetchParallel holds
// when the candidates are too few to give every worker a full chunk:
// each worker positions its own cursors, which a handful of reads does
// not repay.
const fetchChunkMin = 16

// chunkSize is the size of FetchParallel's chunks for n candidates on
// workers goroutines: fetchChunk, or less when that would leave a worker
// idle (a page of 100 candidates is two chunks of 50 on two workers, not
// one of 100 on one), but not under fetchChunkMin.
func chunkSize(n uint64, workers int) int {
	per := (n + uint64(workers) - 1) / uint64(workers)
	return int(max(fetchChunkMin, min(fetchChunk, per)))
}

// splitChunks cuts nums into bitmaps of up to n consecutive numbers.
func splitChunks(nums *roaring.Bitmap, n int) []*roaring.Bitmap {
	var out []*roaring.Bitmap
	buf := make([]uint32, n)
	it := nums.ManyIterator()
	for k := it.NextMany(buf); k > 0; k = it.NextMany(buf) {
		out = append(out, roaring.BitmapOf(buf[:k]...))
	}
	return out
}

// chunkResult is what a worker made of one chunk.
type chunkResult[T any] struct {
	out  []T
	err  error
	done chan struct{}
}

// runChunks has workers goroutines take chunks 0..n-1 in order, each
// chunk made by read on the goroutine that took it (w is its index), and
// yields every chunk's results in chunk order. At most 2×workers chunks
// are read ahead of the consumer; the context read gets ends when the
// consumer stops or fails.
func runChunks[T any](ctx context.Context, n, workers int, read func(ctx context.Context, w, i int) ([]T, error),
	yield func(T, error) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	results := make([]chunkResult[T], n)
	for i := range results {
		results[i].done = make(chan struct{})
	}
	next := make(chan int)
	ahead := make(chan struct{}, 2*workers) // a token per chunk handed out and not yet yielded
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel() // before the wait: workers blocked on ahead or next leave
	go func() {
		defer close(next)
		for i := range n {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := &results[i]
				r.out, r.err = read(ctx, w, i)
				close(r.done)
			}
		}()
	}
	for i := range results {
		r := &results[i]
		select {
		case <-r.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if r.err != nil {
			return r.err
		}
		for _, x := range r.out {
			if !yield(x, nil) {
				return errStopScan
			}
		}
		r.out = nil
		<-ahead
	}
	return nil
}

// readChunk reads the visible documents of chunk through recs and bs,
// into l's buffers, and works on each.
func readChunk[T any](ctx context.Context, principal reader, recs *cursor, bs *bodies, l *lender, chunk *roaring.Bitmap, w int,
	work func(w int, doc *StoredDoc) (T, error)) ([]T, error) {
	out := make([]T, 0, chunk.GetCardinality())
	err := eachRecord(ctx, chunk, recs.records(l), func(num uint32, rec *record) error {
		if ok, err := sees(bs.v.get, principal, num, rec.owner); err != nil || !ok {
			return err
		}
		body, err := bs.body(num, rec)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if err := fillDoc(&l.doc, num, rec, body); err != nil {
			return err
		}
		x, err := work(w, &l.doc)
		if err != nil {
			return err
		}
		out = append(out, x)
		return nil
	})
	return out, err
}
