package store

// DiskUsage is the store's on-disk footprint split by what the bytes hold,
// estimated by Pebble from its sstables (compressed bytes; the WAL and
// memtables are not counted, so flush first for a full figure).
type DiskUsage struct {
	Documents uint64 // everything else: blobs, records, keys and receipts
	Index     uint64 // index postings and dictionary (the 'X' prefix)
	Total     uint64
}

// DiskUsage estimates the store's sstable bytes by key family. It is a
// cheap metadata read: no document or posting is touched.
func (s *Store) DiskUsage() (*DiskUsage, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if err := s.kv.db.Flush(); err != nil {
		return nil, err
	}
	total, err := s.kv.db.EstimateDiskUsage([]byte{0}, []byte{0xff})
	if err != nil {
		return nil, err
	}
	ix, err := s.kv.db.EstimateDiskUsage([]byte{IndexPrefix}, []byte{IndexPrefix + 1})
	if err != nil {
		return nil, err
	}
	return &DiskUsage{Documents: total - min(ix, total), Index: ix, Total: total}, nil
}
