package server

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server/client"
	"github.com/aqlstore/aqlstore/store"
)

// fuzzKey is the server key of the fuzz targets: fixed, so that the
// seeds signed for it (requests, exports) stay valid across runs.
var fuzzKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize))

// fuzzNow is the fuzz server's clock, fixed for the same reason.
var fuzzNow = time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)

// fuzzServer is a server over a store with a few documents of tenants A
// and B, not listening: the targets call its handlers and parsers.
func fuzzServer(f *testing.F) *Server {
	st, ix, err := index.Open(f.TempDir(), &store.Options{NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	auth := fuzzAuth(f)
	srv, err := New(Config{Store: st, Index: ix, Signer: sign.NewSigner(fuzzKey), Auth: auth, Addr: "127.0.0.1:0",
		Heartbeat: time.Hour, RateLimit: -1, Now: func() time.Time { return fuzzNow }})
	if err != nil {
		f.Fatal(err)
	}
	for i, owner := range []string{tenantA, tenantB, store.Public, tenantA} {
		body := shoe("fuzz-"+strconv.Itoa(i), i)
		if _, err := st.Put(store.WithPrincipal(context.Background(), owner), store.Document{Body: []byte(body), Owner: owner}); err != nil {
			f.Fatal(err)
		}
	}
	return srv
}

func fuzzAuth(f *testing.F) *Auth {
	path := filepath.Join(f.TempDir(), "auth.json")
	text := `{"tokens": {"` + tokenA + `": "` + tenantA + `", "` + tokenB + `": "` + tenantB + `"},
		"public_writers": ["` + tenantA + `"], "operators": ["` + tenantA + `"]}`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		f.Fatal(err)
	}
	a, err := LoadAuth(path)
	if err != nil {
		f.Fatal(err)
	}
	return a
}

// signedHeader returns the Authorization header of a request signed by
// keyB for srv at fuzzNow.
func signedHeader(f *testing.F, srv *Server, method, target string, body []byte) string {
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	if err := client.SignRequest(req, body, keyB, srv.cfg.Signer.DID(), fuzzNow); err != nil {
		f.Fatal(err)
	}
	return req.Header.Get("Authorization")
}

// FuzzParseSigned: the DIDKey parameters parse only when every one of
// kid, created, nonce, body-sha256 and sig is there once and well formed;
// then writing them back as SignRequest does reads the same request.
// Anything else gives a reason and no request.
func FuzzParseSigned(f *testing.F) {
	srv := fuzzServer(f)
	h := signedHeader(f, srv, "POST", pathDocuments, []byte(`{}`))
	f.Add(strings.TrimPrefix(h, client.SchemeDIDKey+" "))
	for _, s := range []string{"", "kid=x", `kid="a", kid="b"`, `kid="did:key:z6Mk", created="1", nonce="short", body-sha256="00", sig="AA"`,
		strings.Replace(strings.TrimPrefix(h, client.SchemeDIDKey+" "), "created=\"", "created=\"-", 1)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		sr, why := parseSigned(params)
		if why != "" {
			if sr != nil {
				t.Fatalf("parseSigned(%q): a request and a reason %q", params, why)
			}
			return
		}
		if sr == nil || len(sr.pub) != ed25519.PublicKeySize || len(sr.sig) != ed25519.SignatureSize ||
			!noncePattern.MatchString(sr.nonce) || sign.DIDKey(sr.pub) != strings.SplitN(sr.kid, "#", 2)[0] {
			t.Fatalf("parseSigned(%q) = %+v", params, sr)
		}
		again, why := parseSigned(`kid="` + sr.kid + `", created="` + strconv.FormatInt(sr.created, 10) + `", nonce="` + sr.nonce +
			`", body-sha256="` + sr.digest + `", sig="` + encodeSig(sr.sig) + `"`)
		if why != "" || !reflect.DeepEqual(again, sr) {
			t.Fatalf("parseSigned(%q) = %+v; written back it reads %+v, %q", params, sr, again, why)
		}
	})
}

func encodeSig(sig []byte) string { return base64.RawURLEncoding.EncodeToString(sig) }

// FuzzIdentify: whatever Authorization header a request carries, the
// caller is anonymous only when it sent none; a request that presents
// credentials is either the tenant they name, one the auth file knows,
// or refused with 401 (503 when the replay cache is full), never served
// as anonymous or as another tenant.
func FuzzIdentify(f *testing.F) {
	srv := fuzzServer(f)
	f.Add("")
	f.Add("Bearer " + tokenA)
	f.Add("bearer  " + tokenB + " ")
	f.Add("Bearer " + tokenA[:len(tokenA)-1])
	f.Add("Basic dXNlcjpwYXNz")
	f.Add(signedHeader(f, srv, "GET", pathDocuments+"/x", nil))
	f.Add(client.SchemeDIDKey + ` kid="` + tenantB + `"`)
	tenants := map[string]bool{tenantA: true, tenantB: true}
	f.Fuzz(func(t *testing.T, header string) {
		req := httptest.NewRequest("GET", pathDocuments+"/x", nil)
		if header != "" {
			req.Header["Authorization"] = []string{header}
		}
		c, p := srv.identify(req)
		switch {
		case header == "":
			if c.tenant != "" || p != nil {
				t.Fatalf("no credentials: tenant %q, problem %+v", c.tenant, p)
			}
		case p == nil:
			if !tenants[c.tenant] {
				t.Fatalf("Authorization %q identified %q, not a tenant of the auth file", header, c.tenant)
			}
		case p.status != http.StatusUnauthorized && p.status != http.StatusServiceUnavailable || p.detail == "":
			t.Fatalf("Authorization %q refused with %+v", header, *p)
		}
	})
}

// FuzzLastEventID: a subscription resumes only after an event id this
// server sealed for a receipt seq the store has reached; anything else is
// a 400 bad_last_event_id that says why, and no bare number is accepted.
func FuzzLastEventID(f *testing.F) {
	srv := fuzzServer(f)
	head := srv.cfg.Store.Head()
	for _, s := range []string{"", "0", "1", strconv.FormatUint(head, 10), srv.eventID(0), srv.eventID(head),
		srv.eventID(head + 1), srv.eventID(1 << 63), "-1", " 1", "1\x00", "٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		req := httptest.NewRequest("POST", pathSubscribe+"?last_event_id=ignored", nil)
		req.Header["Last-Event-ID"] = []string{id}
		after, resumed, p := srv.resumeAfter(req)
		if id == "" {
			return // the query parameter is read instead
		}
		if p != nil {
			if p.status != http.StatusBadRequest || p.code != "bad_last_event_id" || resumed || after != 0 {
				t.Fatalf("Last-Event-ID %q: %d, %v, %+v", id, after, resumed, *p)
			}
			return
		}
		seq, err := srv.cfg.Signer.Sealer(eventIDPurpose).OpenUint64(id)
		if !resumed || err != nil || after != seq || after > head {
			t.Fatalf("Last-Event-ID %q resumes after %d (head %d; it opens to %d, %v)", id, after, head, seq, err)
		}
	})
}

// FuzzDecodeExport reads any JSON as an export document (its signature
// taken as checked). A refusal names the member at fault. An accepted
// export writes back (store.EncodeExport) to a document that reads as the same
// export; if it also verifies (store.VerifyExport), it imports into a
// fresh store, whose own export of the owner then holds exactly the same
// documents. A verification or import refusal is ErrBadExport (422) or a
// conflict (409), never another error.
func FuzzDecodeExport(f *testing.F) {
	for _, seed := range exportSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := canon.Decode(b, &canon.Limits{MaxBytes: 1 << 20, MaxDepth: canon.DefaultMaxDepth + 4, MaxMembers: 1 << 16})
		doc, ok := v.(map[string]any)
		if err != nil || !ok {
			return
		}
		e, err := store.DecodeExport(doc)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "/") {
				t.Fatalf("DecodeExport error names no member: %v", err)
			}
			return
		}
		checkExportRoundTrip(t, e)
		if err := store.VerifyExport(e); err != nil {
			if !errors.Is(err, store.ErrBadExport) {
				t.Fatalf("VerifyExport: undocumented error %v", err)
			}
			return
		}
		checkImport(t, e)
	})
}

// checkExportRoundTrip writes e as an export document and reads it back.
func checkExportRoundTrip(t *testing.T, e *store.Export) {
	doc, err := store.EncodeExport(e, sign.DIDKey(fuzzKey.Public().(ed25519.PublicKey)), fuzzNow)
	if err != nil {
		t.Fatalf("EncodeExport: %v", err)
	}
	v, err := canon.Decode(canon.AppendValue(nil, doc), &canon.Limits{MaxBytes: 1 << 30, MaxDepth: 1 << 20, MaxMembers: 1 << 30})
	if err != nil {
		t.Fatalf("export document does not decode: %v", err)
	}
	again, err := store.DecodeExport(v.(map[string]any))
	if err != nil {
		t.Fatalf("export written back does not read: %v", err)
	}
	if again.Owner != e.Owner || len(again.Documents) != len(e.Documents) || len(again.Receipts) != len(e.Receipts) {
		t.Fatalf("export written back reads differently: %+v vs %+v", again, e)
	}
	for i := range e.Documents {
		a, b := again.Documents[i], e.Documents[i]
		if a.ID != b.ID || a.Kind != b.Kind || a.NaturalKey != b.NaturalKey || a.Seq != b.Seq ||
			!bytes.Equal(a.Body, b.Body) || !reflect.DeepEqual(signalsOf(a.Signals), signalsOf(b.Signals)) {
			t.Fatalf("document %d written back reads differently:\n%+v\n%+v", i, a, b)
		}
	}
	for i := range e.Receipts {
		if !bytes.Equal(again.Receipts[i].Bytes, e.Receipts[i].Bytes) {
			t.Fatalf("receipt %d written back reads differently", i)
		}
	}
}

func signalsOf(s *canon.Signals) any {
	if s == nil {
		return nil
	}
	return s.Value()
}

// checkImport imports a verified export into a fresh store and exports it
// again.
func checkImport(t *testing.T, e *store.Export) {
	st, err := store.Open(t.TempDir(), &store.Options{NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := store.WithPrincipal(context.Background(), e.Owner)
	_, err = st.Import(ctx, e, e.Owner, store.Migration{ExportDigest: strings.Repeat("ab", 32)})
	var ce *store.ConflictError
	switch {
	case errors.Is(err, store.ErrBadExport), errors.As(err, &ce), errors.Is(err, store.ErrInvalid) && e.Owner == store.Public:
		return
	case err != nil:
		t.Fatalf("import of a verified export: %v", err)
	}
	out, err := st.Export(context.Background(), e.Owner)
	if err != nil {
		t.Fatal(err)
	}
	want := map[canon.ContentID]bool{}
	for _, d := range e.Documents {
		want[d.ID] = true
	}
	got := map[canon.ContentID]bool{}
	for _, d := range out.Documents {
		got[d.ID] = true
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("imported %d documents, the new store exports %d", len(want), len(got))
	}
}

// exportSeeds are export documents of a store where tenant A put,
// deleted and put candidates and messages among tenant B's puts.
func exportSeeds(f *testing.F) [][]byte {
	st, err := store.Open(f.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	put := func(owner, body string) store.Ref {
		ref, err := st.Put(store.WithPrincipal(context.Background(), owner), store.Document{Body: []byte(body), Owner: owner})
		if err != nil {
			f.Fatal(err)
		}
		return ref
	}
	put(tenantA, `{"offer_id":"a-1","price":"1.00"}`)
	put(tenantB, `{"offer_id":"b-1"}`)
	gone := put(tenantA, `{"node_id":"a-k"}`)
	put(tenantA, `{"id":"a-cand","score":0.5,"cost":{"amount":"2.50","currency":"EUR"},"quality":{"q":1},"record":{"name":"x"}}`)
	put(tenantA, "@v 1\n@mid ref:msg:A\n@ts 2026-01-31T10:00:00Z\n\nreq{t=x,s=f} @rid=a1\n")
	if err := st.Delete(store.WithPrincipal(context.Background(), tenantA), gone); err != nil {
		f.Fatal(err)
	}
	var seeds [][]byte
	for _, owner := range []string{tenantA, tenantB} {
		e, err := st.Export(context.Background(), owner)
		if err != nil {
			f.Fatal(err)
		}
		doc, err := store.EncodeExport(e, sign.DIDKey(fuzzKey.Public().(ed25519.PublicKey)), fuzzNow)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, canon.AppendValue(nil, doc))
	}
	return append(seeds, []byte(`{"export_version":"1","owner":"x","documents":[{"num":1,"seq":1,"id":"00","kind":"json","body":1}],"receipts":[]}`),
		[]byte(`{"export_version":"1","owner":"x","documents":[],"receipts":[{}]}`))
}

// FuzzAuthFile: an auth file loads only when every entry is well formed;
// then every did_keys entry may sign requests and every tenant is a DID.
// Any other file is ErrAuthFile naming the file and never quoting a raw
// token, which is a secret.
func FuzzAuthFile(f *testing.F) {
	for _, s := range []string{
		`{"tokens": {"` + tokenA + `": "` + tenantA + `"}, "public_writers": ["` + tenantA + `"], "operators": []}`,
		`{"tokens": {"sha256:` + sha256Hex(tokenB) + `": "` + tenantB + `"}, "did_keys": ["` + tenantB + `"]}`,
		`{"did_keys": ["` + tenantB + `"]}`, `{"tokens": {"short": "did:web:a.example"}}`,
		`{"tokens": {"` + tokenA + `": "not a did"}}`, `{"tokens": {"sha256:ABC": "did:web:a"}}`, `{"tokenz": {}}`,
		`{"did_keys": ["did:web:not-a-key.example"]}`, `{"trusted_exporters": "did:key:z"}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "auth.json")
	f.Fuzz(func(t *testing.T, content []byte) {
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := LoadAuth(path)
		if err != nil {
			if a != nil || !errors.Is(err, ErrAuthFile) || !strings.Contains(err.Error(), path) {
				t.Fatalf("LoadAuth(%q) = %v; want ErrAuthFile naming the file", content, err)
			}
			checkNoTokenLeak(t, path, content, err)
			return
		}
		for _, did := range a.didKeys {
			if !a.SignerKey(did) {
				t.Fatalf("did_keys entry %s may not sign", did)
			}
		}
		for _, did := range a.tokens {
			if !didPattern.MatchString(did) {
				t.Fatalf("token tenant %q is not a DID", did)
			}
		}
		if a.Enabled() != (len(a.tokens) > 0 || len(a.didKeys) > 0) {
			t.Fatal("Enabled disagrees with the entries")
		}
	})
}

// checkNoTokenLeak fails when err quotes a raw token of the file's
// tokens object that appears nowhere else in the file or its name.
func checkNoTokenLeak(t *testing.T, file string, content []byte, err error) {
	v, derr := canon.Decode(content, nil)
	m, _ := v.(map[string]any)
	tokens, _ := m["tokens"].(map[string]any)
	if derr != nil {
		return
	}
	for tok := range tokens {
		if len(tok) < minTokenLen || strings.HasPrefix(tok, "sha256:") || strings.Count(string(content), tok) > 1 ||
			strings.Contains(file, tok) {
			continue
		}
		if strings.Contains(err.Error(), tok) {
			t.Fatalf("auth file error quotes a token: %v", err)
		}
	}
}

// FuzzPutBody: whatever a body of POST /storage/documents holds, one
// document or NDJSON, with or without ?kind=, each document is stored or
// refused with a 4xx that says why (never a 500); an AIDP message refused
// is answered, when the client asks for it, with a Problem Details
// message that is itself valid AIDP.
func FuzzPutBody(f *testing.F) {
	for _, s := range []string{`{"offer_id":"o-1"}`, "{\"a\":1}\n\n{\"a\":2}\n", "\n \n", `{"a":1,"a":2}`, `{"id":"c"}`,
		"@v 1\n@mid ref:msg:A\n@ts x\n\nack\n", `{"aidp_version":"1","msg_type":"OB","payload":{}}`} {
		f.Add([]byte(s), false, uint8(0))
		f.Add([]byte(s), true, uint8(9))
	}
	files, _ := filepath.Glob("../canon/aidp/testdata/*.json")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false, uint8(10))
	}
	kinds := append([]canon.Kind{""}, append(canon.Kinds(), canon.MessageKinds()...)...)
	f.Fuzz(func(t *testing.T, body []byte, ndjson bool, k uint8) {
		kind := kinds[int(k)%len(kinds)]
		docs, p := splitDocuments(body, ndjson, kind, tenantA, len(body)+1)
		if p != nil {
			if p.status != http.StatusBadRequest || len(bytes.TrimSpace(body)) > 0 {
				t.Fatalf("%q split refused with %+v", body, *p)
			}
			return
		}
		for _, d := range docs {
			_, err := store.ParseDocument(d.Body, kind, nil, nil)
			if err == nil {
				continue
			}
			if p := putProblem(err, ndjson); p.status != http.StatusBadRequest && p.status != http.StatusConflict || p.detail == "" {
				t.Fatalf("%q refused with %d %s: %v", d.Body, p.status, p.code, err)
			}
			checkAIDPFailure(t, err)
		}
	})
}

// checkAIDPFailure: an error the AIDP endpoints answer as an AIDP failure
// becomes a Problem Details message that parses as a PD.
func checkAIDPFailure(t *testing.T, err error) {
	fail, ok := aidpFailureOf(err, "")
	if !ok {
		return
	}
	if fail.status < 400 || fail.status >= 500 || len(fail.errs) == 0 {
		t.Fatalf("AIDP failure %+v for %v", fail, err)
	}
	pd := aidp.NewProblem(fail.envelopeID, fuzzNow, fail.errs...)
	if m, perr := aidp.Parse(canon.AppendValue(nil, pd), nil); perr != nil || m.Problem == nil {
		t.Fatalf("the PD answering %v does not parse: %v", err, perr)
	}
}

// FuzzHTTP sends any request the fuzzer makes up to the server's handler
// (subscriptions aside: their streams do not end) and checks what a
// client sees: never a 5xx but 503, and every error a problem document
// the server signed. The method, path, media type and credentials come
// from small tables the fuzzer indexes, the path's tail and the body are
// free.
func FuzzHTTP(f *testing.F) {
	srv := fuzzServer(f)
	h := srv.Handler()
	pub := srv.cfg.Signer.PublicKey()
	methods := []string{"GET", "POST", "DELETE", "PUT"}
	routes := []string{pathIntent, pathDocuments, pathDocuments + "/", pathExport, pathImport, pathAIDPIntents,
		pathAIDPObservations, pathAIDPObservations + "/", pathAIDPInbox, pathDID, pathManifest, "/healthz", "/metrics", "/"}
	media := []string{"", contentJSON, contentOAP, contentNDJSON, aidp.ContentType(aidp.IE), aidp.ContentType(aidp.OB),
		"application/json; charset=latin1", "text/plain"}
	creds := []string{"", "Bearer " + tokenA, "Bearer " + tokenB, "Bearer nope"}
	for _, s := range []struct {
		m, r, c, a uint8
		tail       string
		body       string
	}{
		{1, 0, 2, 0, "", string(intent("commercial", `{"path":"/offer_id","operator":"exists","value":true}`, ""))},
		{1, 1, 1, 1, "", shoe("x", 1)}, {1, 1, 3, 2, "?kind=offer", shoe("y", 1) + "\n" + shoe("z", 2)},
		{0, 2, 0, 1, "0000", ""}, {2, 2, 0, 2, "ff", ""}, {0, 1, 0, 0, "?kind=offer&key=fuzz-2", ""},
		{0, 3, 0, 1, "?visibility=public", ""}, {1, 4, 1, 1, "", `{"export_version":"1"}`},
		{0, 8, 0, 1, "?cursor=AQAAAAE&limit=2", ""}, {1, 5, 4, 1, "", `{"aidp_version":"1"}`}, {3, 13, 0, 3, "x", "x"},
	} {
		f.Add(s.m, s.r, s.c, s.a, s.tail, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, m, r, c, a uint8, tail string, body []byte) {
		target := routes[int(r)%len(routes)] + tail
		if strings.ContainsAny(tail, " \t\r\n#") || !strings.HasPrefix(target, "/") {
			return // not a request line a client can send
		}
		req, err := http.NewRequest(methods[int(m)%len(methods)], "http://127.0.0.1"+target, bytes.NewReader(body))
		if err != nil || strings.HasPrefix(req.URL.Path, pathSubscribe) {
			return
		}
		req.RemoteAddr = "127.0.0.1:1234"
		req.RequestURI = target
		if ct := media[int(c)%len(media)]; ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		if cred := creds[int(a)%len(creds)]; cred != "" {
			req.Header.Set("Authorization", cred)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		checkHTTPAnswer(t, req, rec, pub)
	})
}

func checkHTTPAnswer(t *testing.T, req *http.Request, rec *httptest.ResponseRecorder, pub ed25519.PublicKey) {
	if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("%s %s: %d\n%s", req.Method, req.RequestURI, rec.Code, rec.Body.Bytes())
	}
	if rec.Code < 400 || req.URL.Path == "/metrics" {
		return
	}
	ct := rec.Header().Get("Content-Type")
	if ct != contentProblem && !strings.HasPrefix(ct, aidp.MediaType) {
		t.Fatalf("%s %s: %d with Content-Type %q", req.Method, req.RequestURI, rec.Code, ct)
	}
	if ct == contentProblem {
		if err := client.Verify(bytes.TrimSuffix(rec.Body.Bytes(), []byte("\n")), pub); err != nil {
			t.Fatalf("%s %s: %d problem not signed by the server: %v\n%s", req.Method, req.RequestURI, rec.Code, err, rec.Body.Bytes())
		}
	}
}

// TestInvalidUTF8DocumentIs400: a document that is not UTF-8 was once
// answered 500 (putProblem did not know canon.ErrInvalidUTF8); found by
// FuzzPutBody.
func TestInvalidUTF8DocumentIs400(t *testing.T) {
	ts := startServer(t, nil)
	status, _, body := ts.do("POST", pathDocuments, contentJSON, tokenA, []byte("{\"a\":\"\xab\"}"))
	if status != http.StatusBadRequest || !bytes.Contains(body, []byte("invalid UTF-8")) {
		t.Fatalf("%d %s; want 400 naming the invalid UTF-8", status, body)
	}
	ts.verified(bytes.TrimSpace(body))
}

// TestProblemForNonUTF8Path: a path escaping a byte that is not UTF-8
// (%FF) was once answered with an unsigned 500, because the problem's
// instance could not be signed; found by FuzzHTTP.
func TestProblemForNonUTF8Path(t *testing.T) {
	ts := startServer(t, nil)
	for _, target := range []string{"/no-such/%FF", pathDocuments + "/%FF%FE"} {
		status, _, body := ts.do("GET", target, "", tokenA, nil)
		if status != http.StatusNotFound && status != http.StatusBadRequest {
			t.Fatalf("GET %s: %d %s; want a 4xx", target, status, body)
		}
		ts.verified(bytes.TrimSpace(body))
		if !bytes.Contains(body, []byte(`"instance":"`+target+`"`)) {
			t.Errorf("GET %s: the instance is not the escaped path: %s", target, body)
		}
	}
}
