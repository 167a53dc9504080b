package store

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/canon"
)

// Indexer keeps secondary indexes inside the store's own batches: a
// document is never visible without its postings, nor postings without
// their document. All calls happen under the store's writer lock, one
// mutation at a time, so an Indexer needs no locking of its own for them.
type Indexer interface {
	// Load is called once by Open, to read what the indexer keeps in
	// memory (a path dictionary, say). It must not read documents.
	Load(r *IndexReader) error
	// Add and Remove are called for each document a mutation puts or
	// deletes, with its canonical bytes.
	Add(num uint32, doc IndexInput) error
	Remove(num uint32, doc IndexInput) error
	// Flush writes the mutation's postings, just before it commits.
	Flush(w *IndexWriter) error
	// Done ends the mutation: committed says whether it reached the disk.
	Done(committed bool)
	// Version names the index format; it is recorded in the store, and a
	// store indexed under another version must be reindexed.
	Version() string
}

// IndexSweeper is an Indexer that keeps entries beside its posting lists
// which outlive the documents that made them unless something deletes
// them: the path dictionary of package index keeps every member name a
// document had, and a member name can be private data. Compact calls
// Sweep after it has deleted the posting lists deletes emptied, one step
// at a time under the writer lock, so no mutation adds to the index
// between what a step reads and what it deletes. A step's writes commit
// in one batch, and Done then reports whether they did, as for a
// mutation. It is an interface of its own so that an Indexer with nothing
// of the kind need not implement it.
type IndexSweeper interface {
	// Sweep deletes through w the entries that no committed document
	// needs among a bounded part of the index, starting at from (nil at
	// the first step), reading the committed index through r. It returns
	// where the next step starts, nil after the last step; the store
	// does not look inside.
	Sweep(r *IndexReader, w *IndexWriter, from []byte) (next []byte, err error)
}

// IndexKeeper is an Indexer whose settings live among its own keys (the
// text paths of package index): Reindex, which deletes every index key,
// calls Keep first so that the rebuilt index keeps them.
type IndexKeeper interface {
	// Keep reads what must outlive the rebuild; r reads the old index.
	Keep(r *IndexReader) error
}

// IndexInput is what an Indexer sees of a document.
type IndexInput struct {
	Kind        canon.Kind
	Owner       string
	Score       canon.Number // signals.score; "" when the document has none
	CandidateID string       // the natural key where there is one, else the content id
	Canonical   []byte       // the stored bytes; valid for the duration of the call
	View        []byte       // the JSON view when it is not Canonical (PAIRL), else nil; valid for the call
}

// JSON returns the RFC 8785 JSON an indexer reads: View when set, else
// Canonical. For JSON kinds the two are the same bytes; a PAIRL message is
// stored as its §8 text and indexed as its JSON view.
func (d IndexInput) JSON() []byte {
	if d.View != nil {
		return d.View
	}
	return d.Canonical
}

// indexed is what an Indexer sees of the document with record r and
// body body.
func (r *record) indexed(body []byte) (IndexInput, error) {
	view, err := viewOf(r.kind, body)
	if err != nil {
		return IndexInput{}, err
	}
	sig, err := r.decodeSignals()
	if err != nil {
		return IndexInput{}, err
	}
	return IndexInput{Kind: r.kind, Owner: r.owner, Score: scoreOf(sig), CandidateID: candidateID(r.naturalKey, r.id),
		Canonical: body, View: view}, nil
}

func scoreOf(s *canon.Signals) canon.Number {
	if s == nil {
		return ""
	}
	return s.Score
}

// candidateID is what a resolver names a candidate by: its natural key
// where it has one, else its content id.
func candidateID(naturalKey string, id canon.ContentID) string {
	if naturalKey != "" {
		return naturalKey
	}
	return id.String()
}

// IndexPrefix starts every key an Indexer may write.
const IndexPrefix = 'X'

// IndexWriter writes postings and plain index keys within a mutation,
// or into a Loader's run, which takes no removals.
type IndexWriter struct {
	b   *batch
	run *loadRun // a Loader's: postings and plain keys join the run
	op  []byte   // scratch operand; Pebble copies what Merge is given
}

// errLoadRemoval refuses a removal inside a Loader, which only adds.
var errLoadRemoval = fmt.Errorf("%w: a bulk load removes no index entries", ErrInvalid)

func checkIndexKey(key []byte) error {
	if len(key) == 0 || key[0] != IndexPrefix {
		return fmt.Errorf("%w: index key %q outside the index prefix", ErrInvalid, key)
	}
	return nil
}

// AddBits sets bm's bits in the posting list at key.
func (w *IndexWriter) AddBits(key []byte, bm *roaring.Bitmap) error {
	if w.run != nil {
		if err := checkIndexKey(key); err != nil {
			return err
		}
		w.run.posting(key, bm.ToArray())
		return nil
	}
	return w.merge(key, bm, nil)
}

// AddSorted sets the bits nums (ascending, no repeats) in the posting
// list at key. It is AddBits without the bitmap: the usual posting of a
// batch holds a few numbers, and encoding them directly saves building
// and serializing a bitmap per key.
func (w *IndexWriter) AddSorted(key []byte, nums []uint32) error {
	if err := checkIndexKey(key); err != nil {
		return err
	}
	if w.run != nil {
		w.run.posting(key, nums)
		return nil
	}
	var ok bool
	if w.op, ok = encodeSortedOperand(w.op[:0], nums); !ok {
		bm := roaring.New()
		bm.AddMany(nums)
		return w.AddBits(key, bm)
	}
	return w.b.b.Merge(key, w.op, nil)
}

// RemoveBits clears bm's bits in the posting list at key.
func (w *IndexWriter) RemoveBits(key []byte, bm *roaring.Bitmap) error {
	if w.run != nil {
		return errLoadRemoval
	}
	return w.merge(key, roaring.New(), bm)
}

func (w *IndexWriter) merge(key []byte, set, clear *roaring.Bitmap) error {
	if err := checkIndexKey(key); err != nil {
		return err
	}
	op, err := encodeOperand(nil, set, clear)
	if err != nil {
		return err
	}
	return w.b.b.Merge(key, op, nil)
}

// Set writes a plain (non-posting) index key. Its value must not read as
// an empty posting list, which Compact deletes (compact.go).
func (w *IndexWriter) Set(key, value []byte) error {
	if err := checkIndexKey(key); err != nil {
		return err
	}
	if isEmptyPosting(value) {
		return fmt.Errorf("%w: index key %q: a plain value may not read as an empty posting list", ErrInvalid, key)
	}
	if w.run != nil {
		w.run.set(key, value)
		return nil
	}
	return w.b.set(key, value)
}

// Delete deletes an index key, plain or posting. It is for an
// IndexSweeper: a mutation clears bits instead, since the key may hold
// other documents' bits it has not read.
func (w *IndexWriter) Delete(key []byte) error {
	if err := checkIndexKey(key); err != nil {
		return err
	}
	if w.run != nil {
		return errLoadRemoval
	}
	return w.b.del(key)
}

// EmptyPosting reports whether v, a posting value read by Scan, lists no
// document. Only short values are decoded: an empty list is a few bytes.
func EmptyPosting(v []byte) bool { return isEmptyPosting(v) }

// IndexReader reads committed index keys.
type IndexReader struct{ k *kv }

// Get returns a copy of a plain index key's value.
func (r *IndexReader) Get(key []byte) ([]byte, bool, error) { return r.k.get(key, nil) }

// Bitmap returns the posting list at key (empty when absent). The bitmap
// belongs to the caller.
func (r *IndexReader) Bitmap(key []byte) (*roaring.Bitmap, error) {
	v, found, err := r.k.get(key, nil)
	if err != nil || !found {
		return roaring.New(), err
	}
	return decodeBitmap(v)
}

// Scan calls fn for every index key in [start, end) with copies of key and
// value; posting values decode with DecodeBitmap.
func (r *IndexReader) Scan(start, end []byte, fn func(key, value []byte) error) error {
	return r.k.scan(start, end, fn)
}

// Keys calls fn for every index key in [start, end), in order, until fn
// returns false or an error; it is Scan without the values, for a walk
// that stops early. key is valid during the call only.
func (r *IndexReader) Keys(start, end []byte, fn func(key []byte) (bool, error)) error {
	return r.k.keys(start, end, fn)
}

// DecodeBitmap decodes a posting value read by Scan.
func DecodeBitmap(v []byte) (*roaring.Bitmap, error) { return decodeBitmap(v) }

// IndexReader returns a reader of the store's committed index keys.
func (s *Store) IndexReader() *IndexReader { return &IndexReader{k: s.kv} }

// metaIndex records the index format of an indexed store.
var metaIndex = []byte("Mindex")

// checkIndexer refuses to open an indexed store without its indexer, or
// with one of another version, or to start indexing a store whose
// documents were never indexed: each would leave postings that disagree
// with the documents.
func (s *Store) checkIndexer() error {
	v, found, err := s.kv.get(metaIndex, nil)
	if err != nil {
		return err
	}
	ix := s.opts.Indexer
	switch {
	case ix == nil && found:
		return fmt.Errorf("store: %s is indexed (%s): open it with index.Open, or run `aqlstore reindex`", s.dir, v)
	case ix == nil:
		return nil
	case found && string(v) != ix.Version():
		return fmt.Errorf("store: %s is indexed as %s, this build writes %s: run `aqlstore reindex`", s.dir, v, ix.Version())
	case !found && s.nextNum > 1:
		return fmt.Errorf("store: %s holds documents that were never indexed: run `aqlstore reindex`", s.dir)
	case !found && s.opts.ReadOnly:
		return fmt.Errorf("store: %s was never opened with its indexes: open it writable once (index.Open, "+
			"or any aqlstore command that writes)", s.dir)
	case !found:
		if err := s.writeMeta(metaIndex, []byte(ix.Version())); err != nil {
			return err
		}
	}
	return ix.Load(s.IndexReader())
}

func (s *Store) writeMeta(key, value []byte) error {
	b := s.kv.newBatch()
	_ = b.set(key, value)
	if err := s.kv.apply(b, true); err != nil {
		b.close()
		return err
	}
	return b.wait()
}

// IndexExtractor is an Indexer that splits Add in two, so that the work
// that reads a document runs outside the writer lock: Extract, safe for
// concurrent use, walks the document and returns its postings with their
// paths spelled out; AddExtracted, under the writer lock like Add, turns
// them into the keys of document num (allocating new path ids) and
// records them as Add does. PutBatch and Loader use it when the store's
// Indexer implements it.
type IndexExtractor interface {
	Indexer
	// Extract returns the document's postings, valid after doc's bytes
	// are gone. It is safe for concurrent use with every other method.
	Extract(doc IndexInput) (any, error)
	// AddExtracted is Add for what Extract returned for the document.
	AddExtracted(num uint32, x any) error
	// FlushRun writes the postings recorded since the last FlushRun and
	// forgets them, keeping what only Flush writes (new paths) for the
	// Flush that ends the mutation. A Loader writes a run at a time.
	FlushRun(w *IndexWriter) error
}

// IndexDeriver is an IndexExtractor whose postings of one key family
// follow from those of another: a load leaves them out of its runs and
// derives them as its merge writes the other family, in key order,
// instead of gathering, sorting and spilling them per document.
type IndexDeriver interface {
	IndexExtractor
	// Derived returns the family (the index key's second byte) whose
	// postings are derived and the family they are derived from.
	Derived() (to, from byte)
	// StartLoad is called as a load starts, before its first document:
	// until Done, AddExtracted leaves the derived family out.
	StartLoad()
	// Derive calls fn with each key derived from key, a posting key of
	// the family derived from; a document in key's list is in each
	// derived list. The keys are built in buf, the caller's scratch,
	// which Derive returns (grown, if it had to) for the next call; fn
	// must not keep them.
	Derive(key, buf []byte, fn func(derived []byte)) []byte
}
