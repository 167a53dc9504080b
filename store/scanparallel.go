package store

import (
	"context"
	"encoding/binary"
	"iter"
	"runtime"

	"github.com/aqlstore/aqlstore/canon"
)

// Verdict is what ScanKindsParallel's test said of a document.
type Verdict uint8

// The verdicts.
const (
	Untested Verdict = iota // test could not run on the bytes (a PAIRL message: its JSON view is built from the text)
	Passed
	Failed
	// PassedHead is Passed for a consumer that wants the document's
	// record only (its reference, natural key and signals): the scan
	// keeps no copy of the body, and the document yielded has no Body
	// and no View. A page kept in a heap ranks by the record and reads
	// the bodies of its few candidates afterwards.
	PassedHead
)

// scanChunk is how many document numbers one worker of ScanKindsParallel
// reads at a time.
const scanChunk = 512

// ScanKindsParallel is ScanKindsKeeping with the judging split in two:
// test runs on up to workers goroutines (0: GOMAXPROCS), each reading
// chunks of consecutive document numbers through an iterator of its own
// on one view, with the document's number and JSON bytes (valid during
// the call) and the worker's index, so that it may keep per-worker state
// (and work ahead for the documents it passes), and returns Passed,
// PassedHead or Failed; keep then runs
// on the iterating goroutine, in ascending document number, with test's
// verdict, and decides whether the document is built and yielded. A
// consumer whose decision depends on the documents before (how many
// rejections it still lists) makes it in keep; the expensive part runs
// in parallel, and the answer does not depend on the scheduling.
// Documents of other kinds and documents the reader may not see reach
// neither.
func (s *Store) ScanKindsParallel(ctx context.Context, kinds []canon.Kind, workers int,
	test func(w int, num uint32, json []byte) Verdict, keep func(num uint32, v Verdict) bool) iter.Seq2[*StoredDoc, error] {
	return func(yield func(*StoredDoc, error) bool) {
		principal := s.readerOf(ctx)
		if workers <= 0 {
			workers = defaultWorkers()
		}
		var stop error // why the consumer stopped
		err := s.readView(func(v *view) error {
			s.mu.Lock()
			end := s.nextNum // after the view was taken: every document it holds is below
			s.mu.Unlock()
			n := int(end/scanChunk) + 1
			workers := max(1, min(workers, n))
			bs := &bodies{v: v} // the consumer's, for shared blobs
			defer bs.close()
			return runChunks(ctx, n, workers, func(ctx context.Context, w, i int) ([]scanned, error) {
				return scanRange(ctx, v, principal, kinds, uint32(i)*scanChunk, i == n-1, w, test)
			}, func(x scanned, _ error) bool {
				if !keep(x.num, x.verdict) {
					return true
				}
				stop = yieldScanned(yield, v, bs, principal, x)
				return stop == nil
			})
		})
		if err == errStopScan && stop != nil {
			err = stop
		}
		if err != nil && err != errStopScan {
			yield(nil, err)
		}
	}
}

// yieldScanned builds and yields a document keep accepted. A worker
// keeps no copy of a record that failed its test: one keep still wants
// (a rejection the consumer lists) is read again.
func yieldScanned(yield func(*StoredDoc, error) bool, v *view, bs *bodies, principal reader, x scanned) error {
	value := x.value
	if value == nil {
		var found bool
		var err error
		if value, found, err = v.get(AppendDocKey(nil, x.num), nil); err != nil || !found {
			return err // not found: the view holds it, so it cannot be
		}
	}
	if x.verdict == PassedHead {
		return yieldHead(yield, v, principal, x.num, value)
	}
	rec, err := decodeRecord(x.num, value)
	if err != nil {
		return err
	}
	return yieldDoc(yield, bs, principal, x.num, &rec, nil, nil)
}

// yieldHead yields document num from the head of its record (a
// PassedHead verdict): no body, no view.
func yieldHead(yield func(*StoredDoc, error) bool, v *view, principal reader, num uint32, head []byte) error {
	rec, err := decodeRecordHead(num, head)
	if err != nil {
		return err
	}
	if ok, err := sees(v.get, principal, num, rec.owner); err != nil || !ok {
		return err
	}
	doc := new(StoredDoc)
	if err := fillDoc(doc, num, &rec, nil); err != nil { // never PAIRL, whose view needs its body: test does not see it
		return err
	}
	if !yield(doc, nil) {
		return errStopScan
	}
	return nil
}

// defaultWorkers is the number of goroutines a parallel read uses.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) }

// scanned is one document a worker read: its record (in the chunk's
// buffer) and its verdict.
type scanned struct {
	num     uint32
	value   []byte
	verdict Verdict
}

// scanRange reads the records of numbers [lo, lo+scanChunk) (to the end
// of the records when last) and tests the visible ones of kinds. The
// records of documents that failed are not copied.
func scanRange(ctx context.Context, v *view, principal reader, kinds []canon.Kind, lo uint32, last bool, w int,
	test func(w int, num uint32, json []byte) Verdict) ([]scanned, error) {
	start := AppendDocKey(nil, lo)
	end := AppendDocKey(nil, lo+scanChunk)
	if last {
		end = prefixEnd([]byte{prefixDoc})
	}
	var out []scanned
	var buf []byte // the chunk's copies of records, one allocation as it grows
	n := 0
	err := v.visit(start, end, func(key, value []byte) (bool, error) {
		if n++; n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		num := binary.BigEndian.Uint32(key[1:])
		p, ok := peekRecord(num, value)
		verdict := Untested
		if ok {
			if !p.of(kinds) {
				return true, nil
			}
			switch p.visibleTo(principal, num) {
			case hidden:
				return true, nil
			case ask:
				if seen, err := sees(v.get, principal, num, string(p.owner)); err != nil || !seen {
					return err == nil, err
				}
			}
			if json := p.json(); json != nil {
				verdict = test(w, num, json)
			}
		}
		x := scanned{num: num, verdict: verdict}
		switch {
		case verdict == PassedHead:
			value = value[:p.head]
			fallthrough
		case verdict != Failed:
			at := len(buf)
			buf = append(buf, value...)
			x.value = buf[at:len(buf):len(buf)]
		}
		out = append(out, x)
		return true, nil
	})
	return out, err
}
