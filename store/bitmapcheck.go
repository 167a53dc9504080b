package store

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// checkPortable checks that b is exactly one roaring bitmap in the
// portable format, whole and sound: keys ascending, array containers
// strictly ascending, bitmap containers holding as many bits as their
// header says, runs in range, ascending, neither overlapping nor
// touching. roaring's UnmarshalBinary takes damaged containers that
// later panic (in RunOptimize, inside a Pebble merge), and its Validate
// compares every run of a container with every other: a merge of a
// posting with 2,000 runs spent its time there. This reads each byte
// once and allocates nothing.
//
// The format (roaring's spec): a cookie, 12346 then the container count
// (no run containers), or 12347 with the count minus one in its high 16
// bits and then a bit per container saying it is a run container; a key
// and cardinality minus one per container; offsets of the containers
// (always without runs, else from 4 containers up); the containers.
func checkPortable(b []byte) error {
	const (
		cookieNoRun  = 12346
		cookieRun    = 12347
		maxArray     = 4096
		bitmapBytes  = 8192
		offsetsAtRun = 4
	)
	if len(b) < 4 {
		return errPortable
	}
	cookie := binary.LittleEndian.Uint32(b)
	var n int
	var runFlags []byte
	switch {
	case cookie == cookieNoRun:
		if len(b) < 8 {
			return errPortable
		}
		n, b = int(binary.LittleEndian.Uint32(b[4:])), b[8:]
		if n > 1<<16 {
			return errPortable
		}
	case cookie&0xffff == cookieRun:
		n, b = int(cookie>>16)+1, b[4:]
		if len(b) < (n+7)/8 {
			return errPortable
		}
		runFlags, b = b[:(n+7)/8], b[(n+7)/8:]
	default:
		return errPortable
	}
	if len(b) < 4*n {
		return errPortable
	}
	header, b := b[:4*n], b[4*n:]
	if runFlags == nil || n >= offsetsAtRun {
		if len(b) < 4*n {
			return errPortable
		}
		b = b[4*n:]
	}
	for i := 0; i < n; i++ {
		key := binary.LittleEndian.Uint16(header[4*i:])
		card := int(binary.LittleEndian.Uint16(header[4*i+2:])) + 1
		if i > 0 && key <= binary.LittleEndian.Uint16(header[4*i-4:]) {
			return errPortable
		}
		var err error
		switch {
		case runFlags != nil && runFlags[i/8]&(1<<(i%8)) != 0:
			b, err = checkRuns(b, card)
		case card > maxArray:
			if len(b) < bitmapBytes || popcount(b[:bitmapBytes]) != card {
				return errPortable
			}
			b = b[bitmapBytes:]
		default:
			b, err = checkArray(b, card)
		}
		if err != nil {
			return err
		}
	}
	if len(b) != 0 {
		return errPortable
	}
	return nil
}

var errPortable = errors.New("not a sound roaring bitmap")

// checkArray checks an array container of card values and returns what
// follows it.
func checkArray(b []byte, card int) ([]byte, error) {
	if len(b) < 2*card {
		return nil, errPortable
	}
	prev := -1
	for i := 0; i < card; i++ {
		v := int(binary.LittleEndian.Uint16(b[2*i:]))
		if v <= prev {
			return nil, errPortable
		}
		prev = v
	}
	return b[2*card:], nil
}

// checkRuns checks a run container holding card values and returns what
// follows it.
func checkRuns(b []byte, card int) ([]byte, error) {
	if len(b) < 2 {
		return nil, errPortable
	}
	runs := int(binary.LittleEndian.Uint16(b))
	b = b[2:]
	if runs == 0 || len(b) < 4*runs {
		return nil, errPortable
	}
	next, sum := 0, 0 // next: the least start the run may have
	for i := 0; i < runs; i++ {
		start := int(binary.LittleEndian.Uint16(b[4*i:]))
		last := start + int(binary.LittleEndian.Uint16(b[4*i+2:]))
		if start < next || last > 0xffff {
			return nil, errPortable
		}
		next, sum = last+2, sum+last-start+1
	}
	if sum != card {
		return nil, errPortable
	}
	return b[4*runs:], nil
}

func popcount(b []byte) int {
	n := 0
	for i := 0; i+8 <= len(b); i += 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(b[i:]))
	}
	return n
}
