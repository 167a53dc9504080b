package index

import (
	"encoding/binary"
	"maps"
	"slices"

	"github.com/aqlstore/aqlstore/store"
)

// checkDictionary compares the two directions of the path dictionary: a
// reverse entry ('P') without its path entry ('p') would keep a member
// name on disk that no lookup reads and no sweep finds, and a path entry
// without its reverse, or two paths under one id, is damage.
func checkDictionary(r *store.IndexReader, ix *Index, rep *CheckReport) error {
	seen := map[uint32]bool{}
	err := r.Scan(appendFamily(nil, famPathID), appendFamily(nil, famPathID+1), func(key, value []byte) error {
		if len(key) != 6 {
			rep.add("reverse dictionary key %q is not a path id", key)
			return nil
		}
		id := binary.BigEndian.Uint32(key[2:])
		seen[id] = true
		if p, ok := ix.paths[id]; !ok || string(p) != string(value) {
			rep.add("reverse dictionary entry %d (%s) has no path entry with that id", id, Path(value))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(ix.ids) != len(ix.paths) {
		rep.add("the dictionary holds %d paths under %d ids: paths share an id", len(ix.ids), len(ix.paths))
	}
	for _, id := range slices.Sorted(maps.Keys(ix.paths)) {
		if !seen[id] {
			rep.add("path entry %d (%s) has no reverse entry", id, ix.paths[id])
		}
	}
	return nil
}

// checkPathID reports a posting keyed by a path id the dictionary does
// not hold. A sweep deletes a dropped path's postings with its entries
// and never gives its id out again, so even an empty one is damage; one
// that lists documents is reported by the comparison too.
func checkPathID(rep *CheckReport, ix *Index, key []byte) {
	if len(key) < 2 || !slices.Contains(pathFamilies, key[1]) {
		return
	}
	if len(key) < 6 {
		rep.add("posting %q is too short to name a path id", key)
		return
	}
	id := binary.BigEndian.Uint32(key[2:])
	if _, ok := ix.paths[id]; !ok {
		rep.add("posting %q is under path id %d, which is not in the dictionary", key, id)
	}
}
