package server

import "time"

// eventWindow enforces max_event_rate_per_minute: at most limit events in
// any 60-second window (a sliding window, not a bucket that refills all at
// once). Used by one subscription goroutine.
type eventWindow struct {
	limit int
	sent  []time.Time // times of the events of the last minute, oldest first
}

func newEventWindow(limit int) *eventWindow { return &eventWindow{limit: max(1, limit)} }

// prune forgets events older than a minute.
func (w *eventWindow) prune(now time.Time) {
	i := 0
	for i < len(w.sent) && !w.sent[i].Add(time.Minute).After(now) {
		i++
	}
	w.sent = w.sent[i:]
}

// free is how many events may be sent at now.
func (w *eventWindow) free(now time.Time) int {
	w.prune(now)
	return w.limit - len(w.sent)
}

// take counts one event sent at now.
func (w *eventWindow) take(now time.Time) { w.sent = append(w.sent, now) }

// nextFree is when the next event may be sent.
func (w *eventWindow) nextFree(now time.Time) time.Time {
	if w.free(now) > 0 {
		return now
	}
	return w.sent[0].Add(time.Minute)
}
