package server

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
)

// readBody reads the request body, at most limit bytes. A larger body
// (by Content-Length, or once limit bytes have been read) is a 413.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *problem) {
	if r.ContentLength > limit {
		p := tooLarge(limit)
		return nil, &p
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		p := bodyProblem(err, limit)
		return nil, &p
	}
	return b, nil
}

// bodyProblem explains why a body of at most limit bytes was not read.
func bodyProblem(err error, limit int64) problem {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return tooLarge(limit)
	case errors.Is(err, errBodyDigest):
		return unauthorized("signed request refused: " + err.Error())
	}
	return badRequest("body_unreadable", "the request body could not be read: "+err.Error())
}

// checkMedia refuses (415) a Content-Type other than the allowed ones;
// parameters (charset=utf-8) are allowed, other charsets are not.
func checkMedia(r *http.Request, allowed ...string) *problem {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	want := strings.Join(allowed, " or ")
	if err != nil || !slices.Contains(allowed, mt) {
		p := unsupportedMedia(ct, want)
		return &p
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		p := unsupportedMedia(ct, want+" in UTF-8")
		return &p
	}
	return nil
}

// acceptsSSE reports whether the client asked for server-sent events.
func acceptsSSE(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && mt == contentSSE {
			return true
		}
	}
	return false
}
