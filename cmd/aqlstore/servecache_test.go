package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMemTotalAndCgroupLimit(t *testing.T) {
	meminfo := "MemTotal:       24576000 kB\nMemFree:         1000 kB\n"
	if got, want := memTotal([]byte(meminfo)), int64(24576000)<<10; got != want {
		t.Errorf("memTotal = %d, want %d", got, want)
	}
	for _, s := range []string{"", "MemFree: 1 kB\n", "MemTotal: x kB\n", "MemTotal: 12 MB\n"} {
		if got := memTotal([]byte(s)); got != 0 {
			t.Errorf("memTotal(%q) = %d, want 0", s, got)
		}
	}
	for s, want := range map[string]int64{"max\n": 0, "": 0, "1073741824\n": 1 << 30, "-1": 0} {
		if got := cgroupLimit([]byte(s)); got != want {
			t.Errorf("cgroupLimit(%q) = %d, want %d", s, got, want)
		}
	}
	if got := serveCacheSize(); got < serveCacheMin {
		t.Errorf("serveCacheSize = %d, below the library default %d", got, serveCacheMin)
	}
}

// TestServeCacheDefault: serve without --cache sizes the block cache from
// the memory (serveCacheSize); --cache still decides when given.
func TestServeCacheDefault(t *testing.T) {
	limit := regexp.MustCompile(`"msg":"prewarm: done[^\n]*"cache_limit":(\d+)`)
	for _, c := range []struct {
		extra []string
		want  int64
	}{
		{nil, serveCacheSize()},
		{[]string{"--cache", "8MiB"}, 8 << 20},
	} {
		_, logs, stop := startServe(t, filepath.Join(t.TempDir(), "store"), append([]string{"--prewarm"}, c.extra...)...)
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(logs.String(), `"msg":"prewarm: done`) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if code := stop(); code != 0 {
			t.Fatalf("serve %v exited with %d:\n%s", c.extra, code, logs.String())
		}
		m := limit.FindStringSubmatch(logs.String())
		if m == nil {
			t.Fatalf("serve %v: no cache_limit in the prewarm line:\n%s", c.extra, logs.String())
		}
		if got, _ := strconv.ParseInt(m[1], 10, 64); got != c.want {
			t.Errorf("serve %v: block cache %d, want %d", c.extra, got, c.want)
		}
	}
}
