package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// A server's block cache. Every query reads its candidates' records, and
// a record whose block the cache does not hold costs a block read and a
// decompression, the largest share of a selective query on a store
// larger than the cache (eq_10pct on 100,000 manifests: 645 CPU-ms with
// a 64 MiB cache, 317 with 256 MiB). A library embedder keeps Pebble's
// cache small unless it asks (store.Options.CacheSize, 64 MiB), since
// the process is not its own; `aqlstore serve` owns its process, so when
// --cache is not given it takes a share of the memory the process may
// use, as databases size their buffer pools (PostgreSQL's documentation
// advises a quarter of a dedicated server's memory for shared_buffers).
const (
	serveCacheShare = 4        // a quarter
	serveCacheMin   = 64 << 20 // the library's default: never less
)

// serveCacheSize is the block cache `aqlstore serve` uses without
// --cache: a quarter of the memory the process may use (the machine's,
// or its cgroup's limit when that is lower), at least 64 MiB; 64 MiB
// when neither can be read.
func serveCacheSize() int64 {
	mem := memTotal(readFile("/proc/meminfo"))
	if limit := cgroupLimit(readFile("/sys/fs/cgroup/memory.max")); limit > 0 && (mem == 0 || limit < mem) {
		mem = limit
	}
	return max(mem/serveCacheShare, serveCacheMin)
}

func readFile(name string) []byte {
	b, _ := os.ReadFile(name) // absent on other systems: no figure
	return b
}

// memTotal reads the MemTotal line of /proc/meminfo ("MemTotal: 16314 kB")
// in bytes; 0 when there is none.
func memTotal(meminfo []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "MemTotal:" && f[2] == "kB" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb > 0 {
				return kb << 10
			}
		}
	}
	return 0
}

// cgroupLimit reads a cgroup v2 memory.max ("max", or bytes); 0 when
// there is no limit.
func cgroupLimit(memoryMax []byte) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(string(memoryMax)), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
