package store

import "encoding/binary"

// PostingCount returns how many documents the posting value v (as Scan
// and Visit read it) lists, from its roaring header alone: no container
// is decoded or checked, so it serves estimates, and a value it cannot
// read counts 0. Numbers a later operand clears are still counted.
func PostingCount(v []byte) uint64 {
	n, k := binary.Uvarint(v)
	if k <= 0 || uint64(len(v)-k) < n {
		return 0
	}
	return portableCount(v[k : k+int(n)])
}

// portableCount sums the container cardinalities in the header of the
// portable roaring bitmap b.
func portableCount(b []byte) uint64 {
	const cookieNoRun, cookieRun = 12346, 12347
	if len(b) < 4 {
		return 0
	}
	var n int
	switch cookie := binary.LittleEndian.Uint32(b); {
	case cookie == cookieNoRun && len(b) >= 8:
		n, b = int(binary.LittleEndian.Uint32(b[4:])), b[8:]
	case cookie&0xffff == cookieRun:
		n = int(cookie>>16) + 1
		if flags := 4 + (n+7)/8; len(b) >= flags {
			b = b[flags:]
		} else {
			b = nil
		}
	default:
		return 0
	}
	if n > 1<<16 || len(b) < 4*n {
		return 0
	}
	var total uint64
	for i := range n {
		total += uint64(binary.LittleEndian.Uint16(b[4*i+2:])) + 1
	}
	return total
}
