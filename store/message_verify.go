package store

import (
	"encoding/binary"
)

// verifyMessageKeys checks that every message key document num owns is
// there, and that those whose value is a document number name num.
func (s *Store) verifyMessageKeys(num uint32, rep *VerifyReport) error {
	v, found, err := s.kv.get(AppendOwnedKey(nil, num), nil)
	if err != nil || !found {
		return err
	}
	keys, ok := decodeKeyList(v)
	if !ok {
		rep.add("document %d: message key list is corrupt", num)
		return nil
	}
	for _, k := range keys {
		v, found, err := s.kv.get(k, nil)
		if err != nil {
			return err
		}
		switch {
		case !found:
			rep.add("document %d: message key %q missing", num, k)
		case len(k) > 1 && k[1] == famUnique && (len(v) != 4 || binary.BigEndian.Uint32(v) != num):
			rep.add("document %d: message key %q names another document", num, k)
		}
	}
	return nil
}
