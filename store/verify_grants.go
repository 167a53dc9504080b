package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"maps"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// verifyGrants checks the grant keys (grant.go) against each other and
// the documents: every 'd' key names a live document, and its grantee's
// bitmap and by-id (and by-key) entries agree with it; every bit of a
// bitmap and every by-id or by-key entry has its 'd' key. A grant a
// reader cannot see is harmless, but one the keys disagree on would let
// the planner and a point read answer differently, so Verify names it.
//
// Grant keys are few beside documents, so damage among them is reported
// once, as grant keys left unchecked, rather than read around.
func verifyGrants(ctx context.Context, v *view, rep *VerifyReport) error {
	err := verifyGrantKeys(ctx, v, rep)
	if err != nil && rep.unreadable(err, "grant keys (not all checked)") {
		return nil
	}
	return err
}

func verifyGrantKeys(ctx context.Context, v *view, rep *VerifyReport) error {
	bitmaps, err := readGrantBitmaps(v, rep)
	if err != nil {
		return err
	}
	grants := map[string]bool{} // string(appendGrantDocKey) of every 'd' key
	start := []byte{prefixGrant, grantDoc}
	err = v.scan(start, prefixEnd(start), func(key, _ []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(key) < 7 {
			rep.add("grant key %q is too short", key)
			return nil
		}
		grants[string(key)] = true
		return verifyGrant(v, rep, binary.BigEndian.Uint32(key[2:6]), string(key[6:]), bitmaps)
	})
	if err != nil {
		return err
	}
	return verifyGrantIndexes(v, rep, grants, bitmaps)
}

// readGrantBitmaps decodes every grantee's bitmap once.
func readGrantBitmaps(v *view, rep *VerifyReport) (map[string]*roaring.Bitmap, error) {
	bitmaps := map[string]*roaring.Bitmap{}
	start := []byte{prefixGrant, grantBitmap}
	err := v.scan(start, prefixEnd(start), func(key, val []byte) error {
		grantee := string(key[2:])
		bm, err := decodeBitmap(val)
		if err != nil {
			rep.add("grant bitmap of %s: %v", grantee, err)
			return nil
		}
		bitmaps[grantee] = bm
		return nil
	})
	return bitmaps, err
}

// verifyGrant checks the keys of one grant of document num to grantee.
func verifyGrant(v *view, rep *VerifyReport, num uint32, grantee string, bitmaps map[string]*roaring.Bitmap) error {
	rec, found, err := readRecord(v.get, num)
	if err != nil || !found {
		if err == nil {
			rep.add("grant of document %d to %s: the document does not exist", num, grantee)
		}
		return nil // a damaged record is reported by verifyDocuments
	}
	if bm := bitmaps[grantee]; bm == nil || !bm.Contains(num) {
		rep.add("grant of document %d to %s: the grantee's bitmap lacks it", num, grantee)
	}
	keys := [][]byte{binary.BigEndian.AppendUint32(appendGrantIDPrefix(nil, grantee, rec.id), num)}
	if rec.naturalKey != "" {
		keys = append(keys, binary.BigEndian.AppendUint32(appendGrantNaturalPrefix(nil, grantee, rec.kind, rec.naturalKey), num))
	}
	for _, k := range keys {
		if _, found, err := v.get(k, nil); err != nil {
			return err
		} else if !found {
			rep.add("grant of document %d to %s: its lookup key %q is missing", num, grantee, k)
		}
	}
	return nil
}

// verifyGrantIndexes checks that every bitmap bit and every by-id or
// by-key entry has its 'd' key.
func verifyGrantIndexes(v *view, rep *VerifyReport, grants map[string]bool, bitmaps map[string]*roaring.Bitmap) error {
	for _, grantee := range slices.Sorted(maps.Keys(bitmaps)) { // a report in key order
		for it := bitmaps[grantee].Iterator(); it.HasNext(); {
			if num := it.Next(); !grants[string(appendGrantDocKey(nil, num, grantee))] {
				rep.add("grant bitmap of %s holds document %d, which is not granted to it", grantee, num)
			}
		}
	}
	for _, fam := range []byte{grantByID, grantByKey} {
		start := []byte{prefixGrant, fam}
		err := v.scan(start, prefixEnd(start), func(key, _ []byte) error {
			nul := bytes.IndexByte(key[2:], 0)
			if nul < 0 || len(key) < 2+nul+1+4 {
				rep.add("grant lookup key %q is malformed", key)
				return nil
			}
			grantee, num := string(key[2:2+nul]), binary.BigEndian.Uint32(key[len(key)-4:])
			if !grants[string(appendGrantDocKey(nil, num, grantee))] {
				rep.add("grant lookup key %q names document %d, which is not granted to %s", key, num, grantee)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
