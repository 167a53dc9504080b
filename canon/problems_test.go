package canon

import (
	"errors"
	"testing"
)

func TestJoinProblems(t *testing.T) {
	one := []error{errors.New("pkg: a is missing")}
	two := append(one, errors.New("pkg: b is wrong"))
	for _, c := range []struct {
		errs []error
		want string
	}{
		{one, "pkg: a is missing"},
		{two, "pkg: 2 problems:\n\ta is missing\n\tb is wrong"},
		{nil, "pkg: 0 problems:"},
	} {
		if got := JoinProblems("pkg", c.errs); got != c.want {
			t.Errorf("JoinProblems(%q) = %q, want %q", c.errs, got, c.want)
		}
	}
	if got := ProblemErrors(two); len(got) != 2 || got[1] != two[1] {
		t.Errorf("ProblemErrors = %v", got)
	}
}
