package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
	"github.com/aqlstore/aqlstore/canon/execintent"
	"github.com/aqlstore/aqlstore/canon/pairl"
)

// allKinds are the kinds ParseDocument takes by name.
var allKinds = append(canon.Kinds(), canon.MessageKinds()...)

// FuzzParseDocument runs the put path's parser on any bytes, with kind
// detection or any kind named, and in both PAIRL modes. A refusal is one
// of the errors ParseDocument documents (each naming a pointer or a
// line), so that a server answers it with a 4xx; an accepted document
// has the kind asked for, carries the parsed message of exactly its
// kind, and parses again from its canonical bytes to the same bytes, key
// and JSON view (import and reindex rely on that). Detection and the
// explicit kind agree.
func FuzzParseDocument(f *testing.F) {
	for _, s := range []string{
		`{"oap_version":"1.0","tool":{"did":"did:web:a.example","version":"1.2.0"}}`, `{"offer_id":"o-9","price":"1.00"}`,
		`{"intent_id":"aql-1","issuer_did":"did:key:z","constraints":[]}`, `{"free":"json"}`, `[1,2]`, `"x"`,
		`{"id":"a-cand","score":0.5,"cost":{"amount":"2.50","currency":"EUR"},"record":{"name":"x"}}`,
		`{"a":1,"a":2}`, "{\"a\":\"\xff\"}", `{"aidp_version":"1","msg_type":"XX","payload":{}}`,
		"@v 1\n@mid ref:msg:A\n@ts 2026-01-31T10:00:00Z\n\nreq{t=x,s=f} @rid=a1\n#fact a=1 @rid=f1\n",
		"@v 1\n@mid ref:msg:B\n@ts 2026-01-31T10:00:00Z\n@parent ref:msg:A\n@budget 0.1USD\n\nbid{} \n#cost val=1 cur=USD\n",
		"@v 1\n@mid ref:msg:C\n@ts x\n@parent ref:msg:C\n\nack\n",
	} {
		f.Add([]byte(s), uint8(0), false)
	}
	files, _ := filepath.Glob("../canon/aidp/testdata/*.json")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0), false)
		f.Add(b, uint8(1), true)
	}
	f.Add(execIntent(f, "ei-00001", "idem-000001", "nonce-000001", 500), uint8(0), false)
	f.Fuzz(func(t *testing.T, body []byte, k uint8, strict bool) {
		kind := fuzzKind(k)
		opts := &MessageOptions{AllowUnsignedObservations: strict}
		if strict {
			opts.PAIRLMode = pairl.Strict
		}
		p, err := ParseDocument(body, kind, nil, opts)
		if err != nil {
			if p != nil {
				t.Fatalf("a document and an error: %v", err)
			}
			checkParseError(t, err)
			return
		}
		if kind != "" && p.Kind != kind {
			t.Fatalf("asked for %s, got %s", kind, p.Kind)
		}
		checkParsed(t, p, opts)
		if kind == "" {
			again, err := ParseDocument(body, p.Kind, nil, opts)
			if err != nil || !sameParsed(again, p) {
				t.Fatalf("detected as %s, but parsing as %s gives %v", p.Kind, p.Kind, err)
			}
		}
	})
}

// fuzzKind picks "" (detect), one of the kinds, or a name that is none.
func fuzzKind(k uint8) canon.Kind {
	switch i := int(k) % (len(allKinds) + 2); {
	case i == 0:
		return ""
	case i <= len(allKinds):
		return allKinds[i-1]
	}
	return "no-such-kind"
}

// checkParseError checks that err is one of the refusals ParseDocument
// documents, with a position.
func checkParseError(t *testing.T, err error) {
	var (
		se *canon.SyntaxError
		de *canon.DocumentError
		al aidp.ErrorList
		ae *aidp.Error
		pe *pairl.Error
		el execintent.ErrorList
		ee *execintent.Error
	)
	switch {
	case errors.As(err, &se):
		if se.Line < 1 || se.Reason == "" {
			t.Fatalf("syntax error without a position: %+v", *se)
		}
	case errors.As(err, &de):
		if de.Reason == "" || (de.Pointer != "" && de.Pointer[0] != '/') {
			t.Fatalf("document error without a pointer: %+v", *de)
		}
	case errors.As(err, &al), errors.As(err, &ae), errors.As(err, &el), errors.As(err, &ee):
	case errors.As(err, &pe):
		if pe.Code == "" || pe.Description == "" {
			t.Fatalf("PAIRL error without a code: %+v", *pe)
		}
	default:
		t.Fatalf("undocumented error %T: %v", err, err)
	}
	if err.Error() == "" {
		t.Fatal("empty error message")
	}
}

// checkParsed checks an accepted document against its canonical bytes.
func checkParsed(t *testing.T, p *Parsed, opts *MessageOptions) {
	set := 0
	for _, ok := range []bool{p.AIDP != nil, p.PAIRL != nil, p.Exec != nil} {
		if ok {
			set++
		}
	}
	if want := map[bool]int{true: 1, false: 0}[canon.IsMessageKind(p.Kind)]; set != want {
		t.Fatalf("a %s with %d parsed messages", p.Kind, set)
	}
	if p.ID() != canon.Sum(p.Canonical) || len(p.Canonical) == 0 {
		t.Fatalf("canonical bytes %q, id %s", p.Canonical, p.ID())
	}
	if p.Kind == canon.KindCandidate {
		return // its canonical bytes are the record alone (canon's FuzzParseDocument rebuilds it)
	}
	big := &canon.Limits{MaxBytes: 1 << 30, MaxDepth: 1 << 20, MaxMembers: 1 << 30}
	again, err := ParseDocument(p.Canonical, p.Kind, big, opts)
	if err != nil || !sameParsed(again, p) {
		t.Fatalf("the canonical bytes of a %s do not parse alike: %v\n%q", p.Kind, err, p.Canonical)
	}
	view, err := viewOf(p.Kind, p.Canonical)
	if err != nil || !bytes.Equal(view, p.View) {
		t.Fatalf("stored %s reads back with view %q, %v; want %q", p.Kind, view, err, p.View)
	}
}

func sameParsed(a, b *Parsed) bool {
	return a.Kind == b.Kind && bytes.Equal(a.Canonical, b.Canonical) && a.NaturalKey == b.NaturalKey &&
		bytes.Equal(a.View, b.View)
}

// FuzzExportReceipt: an export's receipt is accepted only in its own
// canonical form, and then writes back to exactly the bytes given;
// anything else is an error, never a panic.
func FuzzExportReceipt(f *testing.F) {
	r := OwnerReceipt{Seq: 3, Principal: "did:web:a.example", Op: "put", Kind: canon.KindOffer, Owner: "did:web:a.example",
		Doc: 3, HashAfter: canon.Sum([]byte(`{}`)).String(), Prev: zeroHash}
	f.Add(r.appendJSON(nil))
	r.Op, r.Doc, r.Seq = OpImport, 0, 1<<63
	f.Add(r.appendJSON(nil))
	for _, s := range []string{`{}`, `[]`, `{"seq":1}`, `{"doc":18446744073709551617,"seq":-1}`, `{"seq":1.0}`, `{"seq":1,"seq":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		er, err := ExportReceipt(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error of no sentinel: %v", err)
			}
			return
		}
		if !bytes.Equal(er.Bytes, b) || !bytes.Equal(er.appendJSON(nil), b) {
			t.Fatalf("receipt %+v accepted from %q writes back as %q", er.OwnerReceipt, b, er.appendJSON(nil))
		}
	})
}

// FuzzInboxCursor: a cursor Inbox returned reads back to its document
// number; any other text either reads as some number or is an
// ErrInvalid error that quotes it.
func FuzzInboxCursor(f *testing.F) {
	for _, n := range []uint32{0, 1, 255, 1 << 31, 1<<32 - 1} {
		f.Add(encodeInboxCursor(n))
	}
	for _, s := range []string{"", "AQ", "AQAAAAE=", "AgAAAAE", "AQAAAAE_", "!!!!", strings.Repeat("A", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := decodeInboxCursor(s)
		if err != nil {
			if n != 0 || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "inbox cursor") {
				t.Fatalf("decodeInboxCursor(%q) = %d, %v", s, n, err)
			}
			return
		}
		if s == "" {
			if n != 0 {
				t.Fatalf("the empty cursor reads as %d", n)
			}
			return
		}
		if back, err := decodeInboxCursor(encodeInboxCursor(n)); err != nil || back != n {
			t.Fatalf("%q reads as %d, whose cursor reads as %d, %v", s, n, back, err)
		}
	})
}

// FuzzStoredValues reads any bytes as each kind of value the store keeps
// (a damaged disk, item 2 of the reliability issue): a document record, a
// blob, a posting operand, a key list, a blob's reference count and the
// chain head. Each decoder refuses what it cannot read with ErrCorrupt
// (or ok false), never a panic; what it accepts encodes again to a value
// that decodes to the same thing, and a record with a byte after it is
// refused.
func FuzzStoredValues(f *testing.F) {
	rec := record{id: canon.Sum([]byte(`{}`)), blob: 3, kind: canon.KindOffer, owner: "did:web:a.example",
		naturalKey: "o-1", signals: []byte(`{"score":1}`), seq: 9}
	set := roaring.BitmapOf(1, 2, 3, 70000, 1<<31)
	op, err := encodeOperand(nil, set, roaring.BitmapOf(5))
	if err != nil {
		f.Fatal(err)
	}
	notObject := rec
	notObject.signals = []byte(`[1]`) // signals a damaged disk turned into an array
	for _, v := range [][]byte{rec.append(nil, 7), notObject.append(nil, 7), encodeBlob(nil, []byte(`{"a":1}`), "zstd"), encodeBlob(nil, []byte(`[]`), ""),
		op, encodeKeyList([][]byte{[]byte("k1"), nil, []byte("k3")}), appendRefs(nil, 4, 2),
		chainHead{seq: 5, hash: canon.Sum(nil)}.append(nil), {}, {0xff}} {
		f.Add(v, uint32(7))
	}
	f.Fuzz(func(t *testing.T, v []byte, num uint32) {
		if r, err := decodeRecord(num, v); err != nil {
			checkCorrupt(t, "record", err)
		} else if again, err := decodeRecord(num, r.append(nil, num)); err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("record %+v encodes to one that decodes as %+v, %v", r, again, err)
		} else if _, err := decodeRecord(num, append(bytes.Clone(v), 0)); err == nil {
			t.Fatalf("record %q with a byte after it decodes", v)
		} else if _, err := r.decodeSignals(); err != nil {
			checkCorrupt(t, "record signals", err)
		}
		if body, err := decodeBlob(nil, v); err != nil {
			checkCorrupt(t, "blob", err)
		} else if again, err := decodeBlob(nil, encodeBlob(nil, body, "zstd")); err != nil || !bytes.Equal(again, body) {
			t.Fatalf("blob body %q encodes to one that decodes as %q, %v", body, again, err)
		}
		checkOperand(t, v)
		if keys, ok := decodeKeyList(v); ok {
			again, ok := decodeKeyList(encodeKeyList(keys))
			if !ok || len(again) != len(keys) {
				t.Fatalf("key list %q encodes to one that decodes as %q", keys, again)
			}
		}
		if blob, n, ok := decodeRefs(v); ok {
			if b2, n2, ok2 := decodeRefs(appendRefs(nil, blob, n)); !ok2 || b2 != blob || n2 != n {
				t.Fatalf("refs %d, %d encode to %d, %d", blob, n, b2, n2)
			}
		}
		if h, err := decodeChainHead(v); err != nil {
			checkCorrupt(t, "chain head", err)
		} else if !bytes.Equal(h.append(nil), v) {
			t.Fatalf("chain head %+v encodes as %x, read from %x", h, h.append(nil), v)
		}
	})
}

func checkOperand(t *testing.T, v []byte) {
	set, clear, err := decodeOperand(v)
	if err != nil {
		checkCorrupt(t, "posting operand", err)
		return
	}
	out, err := encodeOperand(nil, set.Clone(), clear.Clone())
	if err != nil {
		t.Fatalf("operand %v − %v does not encode: %v", set, clear, err)
	}
	s2, c2, err := decodeOperand(out)
	if err != nil || !s2.Equals(set) || !c2.Equals(clear) {
		t.Fatalf("operand %v − %v encodes to one that decodes as %v − %v, %v", set, clear, s2, c2, err)
	}
}

func checkCorrupt(t *testing.T, what string, err error) {
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("%s: error without ErrCorrupt: %v", what, err)
	}
}

// TestDamagedPostingIsCorrupt: a posting whose array container holds a
// duplicate decoded without error and then panicked in RunOptimize,
// inside the Pebble merger (a compaction crash, not an error). Found by
// FuzzStoredValues; its input is kept in testdata/fuzz.
func TestDamagedPostingIsCorrupt(t *testing.T) {
	damaged := []byte("*:0\x00\x00\x03\x00\x00\x0000\x02\x0000\x00\x0000\x00\x000000000000000000000000")
	if _, _, err := decodeOperand(damaged); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("decodeOperand(damaged) = %v; want ErrCorrupt", err)
	}
	m, err := bitmapMerger.Merge(nil, damaged)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Finish(true); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("merging a damaged posting: %v; want ErrCorrupt", err)
	}
}
