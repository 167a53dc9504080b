package store

import "context"

// The receipt chain is the store's change feed: every put and delete has a
// receipt with a gap-free seq, so a subscriber resumes exactly where it
// left off by asking for the receipts after the last seq it saw.

// Head returns the seq of the last receipt (0 for an empty store).
func (s *Store) Head() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.head.seq
}

// WaitChange blocks until the chain's head passes after, or ctx ends. It
// returns the new head. Safe for many concurrent waiters.
func (s *Store) WaitChange(ctx context.Context, after uint64) (uint64, error) {
	for {
		s.mu.Lock()
		head, ch := s.head.seq, s.changed
		s.mu.Unlock()
		if head > after {
			return head, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return head, ctx.Err()
		}
	}
}

// notifyLocked wakes every WaitChange; the caller holds s.mu and has just
// published a new head.
func (s *Store) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}
