package store

// DiskUsage is the store's on-disk footprint split by what the bytes hold,
// estimated by Pebble from its sstables (compressed bytes; the WAL is not
// counted).
type DiskUsage struct {
	Documents uint64 // everything else: blobs, records, keys and receipts
	Index     uint64 // index postings and dictionary (the 'X' prefix)
	Total     uint64
}

// DiskUsage flushes the memtable, so that every write is in an sstable,
// and estimates the sstable bytes by key family from Pebble's metadata:
// no document or posting is read.
func (s *Store) DiskUsage() (*DiskUsage, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	// The flush below is unsafe after a disk fault (see kv.erase).
	if err := s.kv.fault.refusal(); err != nil {
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
