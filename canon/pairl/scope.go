package pairl

// Budget scopes for a store (§10 V8). ValidateThread checks the scopes of
// a set of messages held together; a store that receives one message at
// a time keeps each scope's members itself and asks these two functions.

// Governing returns the message whose @budget governs m: the nearest on
// m's @parent chain, m included, resolving parents through th (nil: m
// alone), visiting at most maxWalk messages (0: DefaultMaxWalk). It
// returns nil when no message on the chain declares a well-formed @budget.
func Governing(m *Message, th Thread, maxWalk int) *Message {
	if th == nil {
		th = MessageSet{}
	}
	if maxWalk <= 0 {
		maxWalk = DefaultMaxWalk
	}
	return governing(m, th, maxWalk, map[*Message]*Message{})
}

// CheckBudget returns the V8 problems of one budget scope: the spend of
// governed (budget itself included when it is among them) against the
// @budget of budget, plus notes about costs in another unit. Problems
// carry the @mid of the message they concern; the over-budget error is
// about budget, on its @budget line.
func CheckBudget(budget *Message, governed []*Message, mode Mode) []Problem {
	var out []Problem
	for _, s := range budgetScope(budget, governed) {
		p := s.f.problem(mode)
		p.MID = s.msg.MID()
		out = append(out, p)
	}
	return out
}
