package main

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes parseSize takes, binary multiples only.
var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

// parseSize reads a byte count: a whole number, optionally followed by
// B, KiB, MiB or GiB ("64MiB", "2GiB", "1048576").
func parseSize(s string) (int64, error) {
	num, shift := strings.TrimSpace(s), uint(0)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, shift = strings.TrimSpace(n), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("%q is not a size: want a whole number of bytes, or one with KiB, MiB or GiB (\"256MiB\")", s)
	}
	return n << shift, nil
}
