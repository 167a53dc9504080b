// Package hugepage asks the kernel to back large, randomly read arrays
// with transparent huge pages.
package hugepage

import "unsafe"

// size is a transparent huge page on the machines Advise is for.
const size = 2 << 20

// Advise asks that the whole huge pages within s's capacity be backed
// by transparent huge pages (madvise MADV_HUGEPAGE on Linux, where the
// system's setting is usually "madvise"; nothing elsewhere). A hash
// table or an arena of millions of entries, read at random, otherwise
// misses the TLB on nearly every read. It is only advice: s must not
// have been written yet for it to take effect at once, and an error
// changes nothing but the speed, so none is returned.
func Advise[T any](s []T) {
	var t T
	n := uintptr(cap(s)) * unsafe.Sizeof(t)
	if n < 2*size {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[:cap(s)]))), n)
	start := uintptr(unsafe.Pointer(&b[0]))
	from := (start + size - 1) &^ (size - 1)
	to := (start + n) &^ (size - 1)
	if to > from {
		advise(b[from-start : to-start])
	}
}
