package index

import "errors"

// errLivePosting ends the scan of a path's postings at one that still
// lists a document: the path is not dropped (sweep.go).
var errLivePosting = errors.New("index: posting lists a document")

// ErrConfig reports an index configuration that cannot be used.
var ErrConfig = errors.New("index: bad configuration")
