package index

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// Config is what an index is told about its store, kept in the store
// beside the postings (key X C) so that every process opening it indexes
// alike. It changes only through Configure, which reindexes.
type Config struct {
	// TextPaths are the extended JSON Pointers whose strings get trigram
	// postings, so that `contains` and `matches` there start from a narrow
	// candidate set. Elsewhere those operators are lossy lookups (every
	// document with a value at the path), checked exactly. Trigrams were
	// half of a manifest's postings when every string had them, for
	// searches few workloads make, so the default is none.
	TextPaths []string `json:"text_paths"`
}

// Validate reports the first text path that is not an extended JSON
// Pointer, naming it and its position.
func (c *Config) Validate() error {
	_, err := c.pointers()
	return err
}

func (c *Config) pointers() ([]*canon.Pointer, error) {
	out := make([]*canon.Pointer, 0, len(c.TextPaths))
	for i, s := range c.TextPaths {
		p, err := canon.ParsePointer(s)
		if err != nil {
			return nil, fmt.Errorf("%w: text path %d (%q): %v; write it as a JSON Pointer such as /description or /tags/*", ErrConfig, i+1, s, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// maxTextString bounds the strings at a text path that get trigram
// postings; longer ones are listed as long and checked exactly.
const maxTextString = 1024

// textMatcher says which dictionary paths are text paths. It remembers
// each path id's answer; ids are never reused, so an answer never goes
// stale.
type textMatcher struct {
	pats []*canon.Pointer
	mu   sync.Mutex // guards ids: writers extract while readers look up
	ids  map[uint32]bool
	byP  map[string]bool // isTextPath's answers, by encoded path
}

func newTextMatcher(pats []*canon.Pointer) *textMatcher {
	return &textMatcher{pats: pats, ids: map[uint32]bool{}, byP: map[string]bool{}}
}

// isTextPath is isText for a path that may have no id yet (Extract runs
// before the writer allocates ids); it remembers answers by path.
func (m *textMatcher) isTextPath(p []byte) bool {
	if len(m.pats) == 0 {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.byP[string(p)]; ok {
		return t
	}
	segs := Path(p).segments()
	t := slices.ContainsFunc(m.pats, func(ptr *canon.Pointer) bool {
		return match(ptr.Segments(), segs) == exactMatch
	})
	m.byP[string(p)] = t
	return t
}

// isText reports whether path p (id) is matched exactly by a text path.
// Matches through an array index do not count: their trigrams would list
// documents the pattern does not reach.
func (m *textMatcher) isText(id uint32, p []byte) bool {
	if len(m.pats) == 0 {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.ids[id]; ok {
		return t
	}
	segs := Path(p).segments()
	t := slices.ContainsFunc(m.pats, func(ptr *canon.Pointer) bool {
		return match(ptr.Segments(), segs) == exactMatch
	})
	m.ids[id] = t
	return t
}

// loadConfig reads the stored configuration; a store indexed before any
// was written has the default.
func loadConfig(r *store.IndexReader) (Config, bool, error) {
	v, found, err := r.Get(appendFamily(nil, famConfig))
	if err != nil || !found {
		return Config{}, false, err
	}
	var c Config
	if err := json.Unmarshal(v, &c); err != nil {
		return Config{}, false, fmt.Errorf("%w: index configuration (key XC) is not JSON: %v: run `aqlstore reindex`", store.ErrCorrupt, err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, false, fmt.Errorf("%w: stored index configuration: %v", store.ErrCorrupt, err)
	}
	return c, true, nil
}

// Configure sets the index configuration of the store in dir and rebuilds
// its index under it (see Reindex). The store must not be open elsewhere.
func Configure(ctx context.Context, dir string, opts *store.Options, cfg Config, batchDocs int, progress func(done int)) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	// A path given twice is one text path: kept once, where it came first.
	paths := make([]string, 0, len(cfg.TextPaths))
	for _, p := range cfg.TextPaths {
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	cfg.TextPaths = paths
	ix := New()
	ix.want = &cfg
	return store.Reindex(ctx, dir, opts, ix, batchDocs, progress)
}

// Config returns the configuration the index follows.
func (ix *Index) Config() Config {
	return Config{TextPaths: slices.Clone(ix.cfg.TextPaths)}
}

// Keep implements store.IndexKeeper: a reindex keeps the stored
// configuration unless Configure sets another.
func (ix *Index) Keep(r *store.IndexReader) error {
	if ix.want != nil {
		return nil
	}
	cfg, found, err := loadConfig(r)
	if err != nil || !found {
		return err
	}
	ix.want = &cfg
	return nil
}
