package project

import "errors"

// ErrNotObject means the document to project is not a JSON object, so no
// payload object can be made from it; the caller records a projection
// failure for the candidate.
var ErrNotObject = errors.New("project: document is not a JSON object")
