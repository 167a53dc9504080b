package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aqlstore/aqlstore/internal/corpus"
)

// BenchmarkLoaderAdd times the writer's bookkeeping of a bulk load per
// document (Loader.Add: the checks, numbering, record, keys and receipt)
// for manifests prepared beforehand, outside the timer, on a store
// without an indexer; with its allocations.
func BenchmarkLoaderAdd(b *testing.B) {
	s := openTest(b, nil)
	ctx := context.Background()
	pds := make([]*Prepared, b.N)
	for i := range pds {
		body, _ := corpus.Document("manifest", 1, i, nil)
		pd, err := s.Prepare(ctx, Document{Body: body})
		if err != nil {
			b.Fatal(err)
		}
		pds[i] = pd
	}
	l, err := s.NewLoader(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Abort()
	b.ReportAllocs()
	b.ResetTimer()
	for _, pd := range pds {
		if _, err := l.Add(pd); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadRunPath times what a bulk load does with its posting
// lists after the index gathered them: taking them into runs, sorting
// and spilling each run, and merging the runs into sstables (not
// ingesting them). The keys are shaped as a million-manifest load's
// are per run, scaled down: most hold one document, under paths whose
// values are mostly distinct and share long prefixes (URLs, DIDs), and
// a few hold many. Each op is a whole load of loadBenchRuns runs.
func BenchmarkLoadRunPath(b *testing.B) {
	const perRun = 600_000 // one-document keys per run; the shared keys come on top
	type posting struct {
		key  []byte
		nums []uint32
	}
	runs := make([][]posting, loadBenchRuns)
	rng := rand.New(rand.NewPCG(1, 2))
	num := uint32(1)
	for r := range runs {
		for i := range perRun {
			path := uint32(40 + i%8)
			key := binary.BigEndian.AppendUint32([]byte{IndexPrefix, 'q'}, path)
			switch path % 4 {
			case 0:
				key = fmt.Appendf(key, "https://tools.example.com/agents/%016x/invoke", rng.Uint64())
			case 1:
				key = fmt.Appendf(key, "did:web:agents.example.com:%016x", rng.Uint64())
			case 2:
				key = fmt.Appendf(key, "urn:uuid:%08x-%04x", rng.Uint32(), rng.Uint32()&0xffff)
			default:
				key = binary.BigEndian.AppendUint64([]byte{IndexPrefix, 'r', 0, 0, 0, byte(path)}, rng.Uint64())
			}
			runs[r] = append(runs[r], posting{key, []uint32{num + uint32(i/8)}})
		}
		for k := range perRun / 100 { // shared keys: 100 numbers each
			key := fmt.Appendf(binary.BigEndian.AppendUint32([]byte{IndexPrefix, 'q'}, 60), "category-%d", k)
			nums := make([]uint32, 100)
			for j := range nums {
				nums[j] = num + uint32(j*perRun/8/100)
			}
			runs[r] = append(runs[r], posting{key, nums})
		}
		num += perRun / 8
	}
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		s := openTest(b, nil)
		l, err := s.NewLoader(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for r, ps := range runs {
			for _, p := range ps {
				l.run.posting(p.key, p.nums)
			}
			if r < len(runs)-1 {
				if err := l.spill(); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := l.waitSpill(); err != nil {
			b.Fatal(err)
		}
		if _, err := l.merge(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		l.Abort()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*loadBenchRuns*(perRun+perRun/100)), "ns/key")
}

// loadBenchRuns is how many runs BenchmarkLoadRunPath's load spills and
// merges.
const loadBenchRuns = 4
