package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// TestLoadTablesSkipLevelZero: a load into a store whose memtable holds
// only the keys Open wrote ingests its documents' tables into the last
// level, not behind the memtable into level 0, from where they would be
// compacted (read, merged and rewritten) right after the load.
func TestLoadTablesSkipLevelZero(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	l, err := s.NewLoader(ctx, &LoadOptions{RunDocs: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		body := fmt.Sprintf(`{"n":%d,"text":%q}`, i, strings.Repeat(fmt.Sprint(i), 40))
		pd, err := s.Prepare(ctx, Document{Body: []byte(body)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Add(pd); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Commit(); err != nil {
		t.Fatal(err)
	}
	m := s.kv.db.Metrics()
	if l0, total := levelBytes(m.Levels[:1]), levelBytes(m.Levels[:]); l0*10 > total {
		t.Errorf("level 0 holds %d of the %d table bytes after the load", l0, total)
	}
	if err := s.kv.db.Flush(); err != nil {
		t.Fatal(err)
	}
	m = s.kv.db.Metrics()
	total := levelBytes(m.Levels[:])
	// A table that overlaps the memtable is queued behind it and flushed
	// into level 0 (Pebble's flushable ingest).
	if via := int64(m.Flush.AsIngestBytes); via*10 > total {
		t.Errorf("%d of the %d table bytes went through the memtable into level 0", via, total)
	}
	verifyOK(t, s)
}

func levelBytes(levels []pebble.LevelMetrics) int64 {
	n := int64(0)
	for _, lv := range levels {
		n += lv.TablesSize
	}
	return n
}
