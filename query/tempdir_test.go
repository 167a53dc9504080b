package query

import "os"

// tempDir makes a directory for one rapid check (rapid.T has no TempDir);
// the check removes it.
func tempDir() (string, error) { return os.MkdirTemp("", "aqlstore-diff-*") }
