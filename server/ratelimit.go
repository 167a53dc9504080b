package server

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxLimiters bounds the callers tracked at once; beyond it, callers whose
// bucket has refilled (idle ones) are forgotten first.
const maxLimiters = 10000

// limiter is a token bucket per caller. It is safe for concurrent use.
type limiter struct {
	limit rate.Limit
	burst int

	mu      sync.Mutex
	callers map[string]*rate.Limiter
}

// newLimiter returns a limiter of perSecond requests per caller, or nil
// (no limit) when perSecond is negative.
func newLimiter(perSecond float64, burst int) *limiter {
	if perSecond < 0 {
		return nil
	}
	return &limiter{limit: rate.Limit(perSecond), burst: burst, callers: map[string]*rate.Limiter{}}
}

// allow takes a token for caller at now, or says how long until one is
// available.
func (l *limiter) allow(caller string, now time.Time) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	lim := l.get(caller, now)
	r := lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Minute
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

func (l *limiter) get(caller string, now time.Time) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.callers[caller]
	if !ok {
		if len(l.callers) >= maxLimiters {
			l.forgetIdle(now)
		}
		lim = rate.NewLimiter(l.limit, l.burst)
		l.callers[caller] = lim
	}
	return lim
}

// forgetIdle drops callers whose bucket is full again: forgetting them
// changes nothing. When every caller is busy it drops them all rather than
// grow without bound. The caller holds l.mu.
func (l *limiter) forgetIdle(now time.Time) {
	for k, lim := range l.callers {
		if lim.TokensAt(now) >= float64(l.burst) {
			delete(l.callers, k)
		}
	}
	if len(l.callers) >= maxLimiters {
		clear(l.callers)
	}
}

// retryAfterSeconds is the Retry-After value for a wait of d: whole
// seconds, rounded up, at least 1.
func retryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
