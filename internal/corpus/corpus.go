package corpus

import (
	"fmt"
	"io"
	"strings"
)

// The kind names accepted by Config.Kind, Document and Predicates.
const (
	KindCandidate = "candidate"
	KindKnowledge = "knowledge"
	KindManifest  = "manifest"
	KindMessage   = "message"
	KindOffer     = "offer"
)

// kindDef is one document kind: how to write document i, and which
// predicates it controls.
type kindDef struct {
	name string
	// salt separates the kinds' random streams under one seed; a kind
	// that embeds another's document uses that kind's salt.
	salt  uint64
	write func(e *enc, s *source)
	specs []spec
}

// kinds is in the order Kinds reports, sorted by name.
var kinds = []*kindDef{
	{KindCandidate, saltOffer, writeCandidate, offerSpecs()},
	{KindKnowledge, saltKnowledge, writeKnowledge, knowledgeSpecs()},
	{KindManifest, saltManifest, writeManifest, manifestSpecs()},
	{KindMessage, saltMessage, writeMessage, messageSpecs()},
	{KindOffer, saltOffer, writeOffer, offerSpecs()},
}

const (
	saltManifest  = 0x6d616e6966657374 // "manifest"
	saltOffer     = 0x6f66666572000000 // "offer"
	saltKnowledge = 0x6b6e6f776c656467 // "knowledg"
	saltMessage   = 0x6d65737361676500 // "message"
)

func kindByName(name string) (*kindDef, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k, true
		}
	}
	return nil, false
}

// Kinds returns the generator's kind names, sorted.
func Kinds() []string {
	out := make([]string, len(kinds))
	for j, k := range kinds {
		out[j] = k.name
	}
	return out
}

func unknownKind(name string) error {
	return fmt.Errorf("%w %q (known kinds: %s)", ErrUnknownKind, name, strings.Join(Kinds(), ", "))
}

// Config describes a corpus: documents 0..N-1 of Kind under Seed.
type Config struct {
	Kind string // one of Kinds()
	Seed uint64 // any value; each seed is an independent corpus
	N    int    // number of documents, ≥ 0
}

// Generator streams a corpus. It holds one reusable random source and no
// documents, so its memory does not grow with N. A Generator is not safe for
// concurrent use; generate shards in parallel with Document instead.
type Generator struct {
	kind *kindDef
	seed uint64
	n, i int
	src  *source
}

// New returns a Generator for cfg, or an error for an unknown kind (listing
// the known ones) or a negative N.
func New(cfg Config) (*Generator, error) {
	k, ok := kindByName(cfg.Kind)
	if !ok {
		return nil, unknownKind(cfg.Kind)
	}
	if cfg.N < 0 {
		return nil, fmt.Errorf("%w: N = %d", ErrNegative, cfg.N)
	}
	return &Generator{kind: k, seed: cfg.Seed, n: cfg.N, src: newSource()}, nil
}

// Next appends the next document's compact JSON (no trailing newline) to dst
// and returns it with true; after N documents it returns dst unchanged and
// false. The returned slice is the caller's, as dst was.
func (g *Generator) Next(dst []byte) ([]byte, bool) {
	if g.i >= g.n {
		return dst, false
	}
	dst = appendDoc(dst, g.kind, g.src, g.seed, g.i)
	g.i++
	return dst, true
}

// ndjsonFlush is the buffered size at which WriteNDJSON writes; it bounds
// memory and keeps writes large.
const ndjsonFlush = 64 << 10

// WriteNDJSON writes the remaining documents to w, one per line.
func (g *Generator) WriteNDJSON(w io.Writer) error {
	buf := make([]byte, 0, ndjsonFlush+8<<10)
	for {
		var ok bool
		buf, ok = g.Next(buf)
		if ok {
			buf = append(buf, '\n')
		}
		if len(buf) > 0 && (!ok || len(buf) >= ndjsonFlush) {
			if _, err := w.Write(buf); err != nil {
				return fmt.Errorf("write ndjson: %w", err)
			}
			buf = buf[:0]
		}
		if !ok {
			return nil
		}
	}
}

// Document appends document i of kind under seed to dst, byte-identical to
// what a Generator produces at index i.
func Document(kind string, seed uint64, i int, dst []byte) ([]byte, error) {
	k, ok := kindByName(kind)
	if !ok {
		return dst, unknownKind(kind)
	}
	if i < 0 {
		return dst, fmt.Errorf("%w: index %d", ErrNegative, i)
	}
	return appendDoc(dst, k, newSource(), seed, i), nil
}

func appendDoc(dst []byte, k *kindDef, s *source, seed uint64, i int) []byte {
	s.reset(k.salt, seed, i)
	s.e = enc{b: dst, start: len(dst)}
	k.write(&s.e, s)
	dst = s.e.b
	s.e.b = nil // do not keep the caller's buffer alive
	return dst
}
