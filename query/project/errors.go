package project

import "errors"

// ErrNotObject means the document to project is not a JSON object, so no
// payload object can be made from it; the caller records a projection
// failure for the candidate.
var ErrNotObject = errors.New("project: document is not a JSON object")

// ErrMalformed means ApplyRaw was given bytes that are not canonical JSON
// where it had to read them.
var ErrMalformed = errors.New("project: document is not canonical JSON")
