package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestBootstrapFlag(t *testing.T) {
	f := &clusterFlags{boot: "1=a.ndjson, 2=/x/b.ndjson"}
	got, err := f.bootstrapFiles()
	if err != nil || fmt.Sprint(got) != "map[1:a.ndjson 2:/x/b.ndjson]" {
		t.Fatalf("--bootstrap %q: %v %v", f.boot, got, err)
	}
	for _, bad := range []string{"a.ndjson", "x=a", "1="} {
		f := &clusterFlags{boot: bad}
		_, err := f.bootstrapFiles()
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "shard=path") {
			t.Errorf("--bootstrap %q: %v, want a usage error asking for shard=path", bad, err)
		}
	}
}
