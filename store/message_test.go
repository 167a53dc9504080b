package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
	"github.com/aqlstore/aqlstore/canon/execintent"
	"github.com/aqlstore/aqlstore/canon/pairl"
)

// aidpFixture reads a message of canon/aidp's testdata (written by this
// project) and applies edits to its payload.
// aidpFixture returns the §19 example message name with payload members
// replaced by edit (an object value is merged into the fixture's object).
func aidpFixture(t testing.TB, name string, edit map[string]any) []byte {
	t.Helper()
	b, err := os.ReadFile("../canon/aidp/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	p := m["payload"].(map[string]any)
	for k, v := range edit {
		if obj, ok := v.(map[string]any); ok { // merged into the fixture's object
			for kk, vv := range obj {
				p[k].(map[string]any)[kk] = vv
			}
			continue
		}
		p[k] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ie(t testing.TB, envelopeID string, edit map[string]any) []byte {
	e := map[string]any{"envelope_id": envelopeID}
	for k, v := range edit {
		e[k] = v
	}
	return aidpFixture(t, "ie-19.1.json", e)
}

func ob(t testing.TB, envelopeID, executionID, status, ts string) []byte {
	return aidpFixture(t, "ob-19.2.json", map[string]any{"envelope_id": envelopeID, "execution_id": executionID,
		"status": status, "timestamp": ts})
}

// execIntent returns a sealed ExecutionIntent.v1.
func execIntent(t testing.TB, id, idem, nonce string, maxCents int) []byte {
	t.Helper()
	hex := strings.Repeat("ab", 32)
	created := time.Date(2026, 4, 5, 12, 0, 0, 0, time.UTC)
	doc, err := execintent.Seal(map[string]any{
		"schemaVersion": "ExecutionIntent.v1", "intentId": id, "tenantId": "tenant_acme", "agentId": "agt_1",
		"requestFingerprint": map[string]any{"canonicalization": "rfc8785-jcs", "method": "POST", "path": "/v1/pay",
			"querySha256": hex, "bodySha256": hex, "requestSha256": hex},
		"riskProfile": map[string]any{"riskClass": "financial", "sideEffecting": true,
			"expectedDeterminism": "deterministic", "maxLossCents": maxCents, "requiresHumanApproval": false},
		"spendBounds":    map[string]any{"currency": "USD", "maxAmountCents": maxCents},
		"policyBinding":  map[string]any{"policyId": "pol", "policyVersion": 1, "policyHash": hex, "verificationMethodHash": hex},
		"idempotencyKey": idem, "nonce": nonce, "createdAt": created, "expiresAt": created.Add(time.Hour),
	})
	if err != nil {
		t.Fatal(err)
	}
	return canon.AppendValue(nil, doc)
}

// pairlMsg builds a PAIRL message; extra holds header lines, body records.
func pairlMsg(mid, extra, body string) []byte {
	h := "@v 1\n@mid ref:msg:" + mid + "\n@ts 2026-01-31T10:00:00Z\n" + extra
	return []byte(h + "\n" + body)
}

func putBody(ctx context.Context, s *Store, body []byte) (Ref, error) {
	return s.Put(ctx, Document{Body: body})
}

func TestMessageKindsPinned(t *testing.T) {
	for _, c := range []struct{ got, want canon.Kind }{
		{canon.KindAIDPEnvelope, aidp.KindEnvelope}, {canon.KindAIDPObservation, aidp.KindObservation},
		{canon.KindAIDPProblem, aidp.KindProblem}, {canon.KindPAIRL, pairl.Kind}, {canon.KindExecutionIntent, execintent.Kind},
	} {
		if c.got != c.want {
			t.Errorf("canon names %q, its package %q", c.got, c.want)
		}
		if k, err := canon.ParseKind(string(c.want)); err != nil || k != c.want {
			t.Errorf("ParseKind(%q) = %q, %v", c.want, k, err)
		}
	}
}

func TestPutDetectsMessageKinds(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	text := []byte("@v 1\n@ts 2026-01-31T10:00:00Z\n@mid ref:msg:k1\n\nreq{t=specs}   @rid=A1\n#fact deadline=2026-02-05 @rid=f1\n")
	for _, c := range []struct {
		body []byte
		want canon.Kind
	}{
		{ie(t, "env-k", nil), canon.KindAIDPEnvelope},
		{ob(t, "env-k", "x-1", "executed", "2026-01-13T09:14:02Z"), canon.KindAIDPObservation},
		{aidpFixture(t, "pd-19.3.json", nil), canon.KindAIDPProblem},
		{execIntent(t, "int_k", "idem_k", "nonce_kkk", 100), canon.KindExecutionIntent},
		{text, canon.KindPAIRL},
		{[]byte(`{"intent_id":"aql-1","issuer_did":"did:key:z","constraints":[]}`), canon.KindIntent},
	} {
		ref, err := putBody(ctx, s, c.body)
		if err != nil {
			t.Fatalf("%s: %v", c.want, err)
		}
		if ref.Kind != c.want {
			t.Fatalf("detected %s, want %s", ref.Kind, c.want)
		}
	}
	doc, err := s.Lookup(ctx, canon.KindPAIRL, "ref:msg:k1")
	if err != nil {
		t.Fatal(err)
	}
	m, _, _ := pairl.Parse(text, pairl.Loose)
	if string(doc.Body) != string(m.Canonical()) || doc.ID != canon.ContentID(sha256.Sum256(doc.Body)) {
		t.Fatalf("PAIRL stored as %q (id %s)", doc.Body, doc.ID)
	}
	v, err := doc.Value()
	if err != nil {
		t.Fatal(err)
	}
	recs := v.(map[string]any)["records"].([]any)
	if f := recs[1].(map[string]any); f["key"] != "deadline" || f["rid"] != "f1" {
		t.Fatalf("view %v", v)
	}
	// An explicit kind that does not match is refused with the pointer.
	_, err = s.Put(ctx, Document{Body: ie(t, "env-x", nil), Kind: canon.KindAIDPObservation})
	if !errors.Is(err, aidp.ErrMalformedMessage) || !strings.Contains(err.Error(), "/msg_type") {
		t.Fatalf("IE put as OB: %v", err)
	}
	verifyOK(t, s)
}

func TestEnvelopeReplay(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	a, err := putBody(ctx, s, ie(t, "env-1", nil))
	if err != nil {
		t.Fatal(err)
	}
	again, err := putBody(ctx, s, ie(t, "env-1", nil))
	if err != nil || !repeats(again, a) {
		t.Fatalf("identical IE: %+v %v", again, err)
	}
	head := s.Head()
	_, err = putBody(ctx, s, ie(t, "env-1", map[string]any{"timestamp": "2026-01-13T09:15:00+02:00"}))
	var re *ReplayError
	if !errors.Is(err, ErrReplay) || !errors.Is(err, aidp.ErrReplayDetected) || !errors.Is(err, ErrConflict) ||
		!errors.As(err, &re) || re.Pointer != "/payload/envelope_id" || !strings.Contains(err.Error(), "REPLAY_DETECTED") {
		t.Fatalf("replayed envelope: %v", err)
	}
	if s.Head() != head {
		t.Fatal("a refused replay wrote a receipt")
	}
	verifyOK(t, s)
}

func TestObservationBindingAndQuarantine(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	early := ob(t, "env-2", "x-1", "failed", "2026-01-13T09:14:02Z")
	if _, err := putBody(ctx, s, early); !errors.Is(err, ErrUnbound) || !strings.Contains(err.Error(), "/payload/envelope_id") {
		t.Fatalf("unbound OB: %v", err)
	}
	if _, err := s.ObservationsFor(ctx, "env-2", true); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a rejected OB was stored: %v", err)
	}
	if _, err := s.Put(ctx, Document{Body: early, Unbound: QuarantineUnbound}); err != nil {
		t.Fatal(err)
	}
	obs, err := s.ObservationsFor(ctx, "env-2", false)
	if err != nil || len(obs) != 1 || !obs[0].Quarantined || obs[0].Audit != nil || obs[0].Status != aidp.StatusFailed {
		t.Fatalf("quarantined: %+v %v", obs, err)
	}
	verifyOK(t, s)
	if _, err := putBody(ctx, s, ie(t, "env-2", nil)); err != nil {
		t.Fatal(err)
	}
	later := ob(t, "env-2", "x-2", "executed", "2026-01-13T09:15:02Z")
	if _, err := putBody(ctx, s, later); err != nil {
		t.Fatal(err)
	}
	obs, err = s.ObservationsFor(ctx, "env-2", true)
	if err != nil || len(obs) != 2 {
		t.Fatalf("all: %+v %v", obs, err)
	}
	for _, o := range obs {
		if o.Quarantined || o.AuditDigest != canon.ContentID(sha256.Sum256(o.Audit)) ||
			!strings.Contains(string(o.Audit), `"intent_body_digest":"sha256:`) {
			t.Fatalf("bound observation %s: quarantined %v audit %s", o.ExecutionID, o.Quarantined, o.Audit)
		}
	}
	latest, _ := s.ObservationsFor(ctx, "env-2", false)
	if len(latest) != 1 || latest[0].ExecutionID != "x-2" {
		t.Fatalf("latest: %+v", latest)
	}
	// Another observation for the same execution is a replay.
	_, err = putBody(ctx, s, ob(t, "env-2", "x-2", "failed", "2026-01-13T09:16:02Z"))
	var re *ReplayError
	if !errors.As(err, &re) || re.Key != "(envelope_id, execution_id)" {
		t.Fatalf("second OB for x-2: %v", err)
	}
	// Deleting the observations removes their keys with them.
	for _, o := range obs {
		if err := s.Delete(ctx, o.Doc.Ref); err != nil {
			t.Fatal(err)
		}
	}
	verifyOK(t, s)
	n := 0
	_ = s.kv.scan([]byte{prefixMessage, famAudit}, []byte{prefixMessage, famAudit + 1}, func(_, _ []byte) error { n++; return nil })
	if n != 0 {
		t.Fatalf("%d audit keys left", n)
	}
}

func TestObservationBindsInOneBatch(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	refs, err := s.PutBatch(ctx, []Document{
		{Body: ob(t, "env-3", "x-1", "executed", "2026-01-13T09:14:02Z"), Unbound: QuarantineUnbound},
		{Body: ie(t, "env-3", nil)},
		{Body: ob(t, "env-3", "x-2", "executed", "2026-01-13T09:14:03Z")},
	})
	if err != nil || len(refs) != 3 {
		t.Fatal(err)
	}
	obs, err := s.ObservationsFor(ctx, "env-3", true)
	if err != nil || len(obs) != 2 || obs[0].Quarantined || obs[1].Quarantined {
		t.Fatalf("%+v %v", obs, err)
	}
	// A batch whose last document fails stores nothing.
	_, err = s.PutBatch(ctx, []Document{{Body: ie(t, "env-4", nil)}, {Body: ob(t, "env-5", "x", "executed", "2026-01-13T09:14:03Z")}})
	if !errors.Is(err, ErrUnbound) {
		t.Fatal(err)
	}
	if _, err := s.Lookup(ctx, canon.KindAIDPEnvelope, "env-4"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("half a batch stored: %v", err)
	}
	verifyOK(t, s)
}

func TestInbox(t *testing.T) {
	s := openTest(t, nil)
	alice := WithPrincipal(context.Background(), "did:key:alice")
	bob := WithPrincipal(context.Background(), "did:key:bob")
	for i, ctx := range []context.Context{alice, bob, alice, alice, bob} {
		env := "env-in-" + string(rune('a'+i))
		if _, err := putBody(ctx, s, ie(t, env, nil)); err != nil {
			t.Fatal(err)
		}
		if _, err := putBody(ctx, s, ob(t, env, "x", "executed", "2026-01-13T09:14:02Z")); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	cursor, resume := "", ""
	for pages := 0; ; pages++ {
		page, err := s.Inbox(alice, cursor, 2, nil)
		resume = page.Resume
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Docs {
			if d.Owner != "did:key:alice" || d.Kind != canon.KindAIDPObservation {
				t.Fatalf("alice's inbox holds %+v", d.Ref)
			}
			got = append(got, d.NaturalKey)
		}
		if cursor = page.NextCursor; cursor == "" {
			if pages != 1 {
				t.Fatalf("%d pages", pages+1)
			}
			break
		}
	}
	if len(got) != 3 {
		t.Fatalf("alice's inbox: %q", got)
	}
	// Queue semantics: the last page's Resume polls for what comes next,
	// and an empty poll keeps it.
	empty, err := s.Inbox(alice, resume, 2, nil)
	if err != nil || len(empty.Docs) != 0 || empty.Resume != resume || empty.NextCursor != "" {
		t.Fatalf("polling after the last page: %+v %v", empty, err)
	}
	for _, ctx := range []context.Context{bob, alice} {
		if _, err := putBody(ctx, s, ie(t, "env-in-late", nil)); err != nil {
			t.Fatal(err)
		}
		if _, err := putBody(ctx, s, ob(t, "env-in-late", "x", "executed", "2026-01-13T09:14:09Z")); err != nil {
			t.Fatal(err)
		}
	}
	late, err := s.Inbox(alice, resume, 2, nil)
	if err != nil || len(late.Docs) != 1 || late.Docs[0].Owner != "did:key:alice" || late.Resume == resume {
		t.Fatalf("polling after alice's late observation: %+v %v", late, err)
	}
	for _, bad := range []struct {
		cursor string
		limit  int
	}{{"", 0}, {"", 101}, {"not-a-cursor", 10}} {
		if _, err := s.Inbox(alice, bad.cursor, bad.limit, nil); !errors.Is(err, ErrInvalid) {
			t.Fatalf("inbox(%q, %d): %v", bad.cursor, bad.limit, err)
		}
	}
}

func TestExecutionIntentRules(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	a, err := putBody(ctx, s, execIntent(t, "int_1", "idem_1", "nonce_111", 100))
	if err != nil {
		t.Fatal(err)
	}
	if again, err := putBody(ctx, s, execIntent(t, "int_1", "idem_1", "nonce_111", 100)); err != nil || !repeats(again, a) {
		t.Fatalf("identical intent: %+v %v", again, err)
	}
	var ce *ConflictError
	if _, err := putBody(ctx, s, execIntent(t, "int_1", "idem_9", "nonce_999", 100)); !errors.As(err, &ce) || ce.NaturalKey != "int_1" {
		t.Fatalf("intentId reused: %v", err)
	}
	var re *ReplayError
	_, err = putBody(ctx, s, execIntent(t, "int_2", "idem_1", "nonce_222", 100))
	if !errors.As(err, &re) || re.Pointer != "/idempotencyKey" || !errors.Is(err, ErrReplay) {
		t.Fatalf("idempotency key reused: %v", err)
	}
	_, err = putBody(ctx, s, execIntent(t, "int_3", "idem_3", "nonce_111", 100))
	if !errors.As(err, &re) || re.Pointer != "/nonce" {
		t.Fatalf("nonce reused: %v", err)
	}
	// A tampered intent shows both hashes.
	var m map[string]any
	_ = json.Unmarshal(execIntent(t, "int_4", "idem_4", "nonce_444", 100), &m)
	want := m["intentHash"].(string)
	m["spendBounds"].(map[string]any)["maxAmountCents"] = 999999
	tampered, _ := json.Marshal(m)
	_, err = putBody(ctx, s, tampered)
	if !errors.Is(err, execintent.ErrHashMismatch) || !strings.Contains(err.Error(), want) {
		t.Fatalf("tampered intent: %v", err)
	}
	// Deleting an intent frees its replay keys.
	if err := s.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := putBody(ctx, s, execIntent(t, "int_5", "idem_1", "nonce_111", 100)); err != nil {
		t.Fatal(err)
	}
	verifyOK(t, s)
}

func TestAQLIntentUnique(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	mustPut(t, s, ctx, `{"intent_id":"q-1","issuer_did":"did:key:z","constraints":[]}`)
	_, err := s.Put(ctx, Document{Body: []byte(`{"intent_id":"q-1","issuer_did":"did:key:y","constraints":[]}`)})
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Kind != string(canon.KindIntent) || ce.NaturalKey != "q-1" {
		t.Fatalf("intent_id reused: %v", err)
	}
}

func TestPAIRLThreadRules(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	put := func(body []byte, o *MessageOptions) error {
		p, err := ParseDocument(body, "", nil, o)
		if err != nil {
			return err
		}
		_, err = s.Put(ctx, Document{Parsed: p})
		return err
	}
	root := pairlMsg("a", "@budget 0.50USD\n", "req{t=research} @rid=a1\n")
	if err := put(root, nil); err != nil {
		t.Fatal(err)
	}
	// @mid is unique.
	var ce *ConflictError
	if err := put(pairlMsg("a", "", "req{t=other} @rid=a1\n"), nil); !errors.As(err, &ce) || ce.NaturalKey != "ref:msg:a" {
		t.Fatalf("@mid reused: %v", err)
	}
	// V4: strict_refs needs the parent stored.
	orphan := pairlMsg("o", "@parent ref:msg:nowhere\n", "ack{} @rid=a1\n")
	err := put(orphan, &MessageOptions{StrictRefs: true})
	var me *MessageError
	if !errors.Is(err, ErrThread) || !errors.As(err, &me) || me.Line != 4 || !strings.Contains(err.Error(), "V4") {
		t.Fatalf("V4: %v", err)
	}
	if err := put(orphan, nil); err != nil {
		t.Fatalf("loose refs: %v", err)
	}
	// V8: the thread's spend counts stored messages.
	b := pairlMsg("b", "@parent ref:msg:a\n", "cmp{t=research} @rid=a1\n#cost val=0.30 cur=USD @rid=c1\n")
	if err := put(b, &MessageOptions{StrictRefs: true}); err != nil {
		t.Fatal(err)
	}
	c := pairlMsg("c", "@parent ref:msg:b\n", "cmp{t=research} @rid=a1\n#cost val=0.25 cur=USD @rid=c1\n")
	if err := put(c, nil); !errors.Is(err, ErrThread) || !strings.Contains(err.Error(), "V8") {
		t.Fatalf("V8 over the thread: %v", err)
	}
	bid := pairlMsg("c", "@parent ref:msg:b\n", "bid{t=research} @rid=a1\n#cost val=0.25 cur=USD @rid=c1\n")
	if err := put(bid, nil); err != nil {
		t.Fatalf("a bid is an estimate: %v", err)
	}
	// V7: a message closing a cycle through stored ones (strict mode).
	x := pairlMsg("x", "@parent ref:msg:y\n", "ack{} @rid=a1\n")
	if err := put(x, nil); err != nil {
		t.Fatal(err)
	}
	y := pairlMsg("y", "@parent ref:msg:x\n", "ack{} @rid=a1\n")
	if err := put(y, &MessageOptions{PAIRLMode: pairl.Strict}); !errors.Is(err, ErrThread) || !strings.Contains(err.Error(), "V7") {
		t.Fatalf("V7: %v", err)
	}
	// The thread as a tree.
	tree, err := s.Thread(ctx, "ref:msg:c")
	if err != nil {
		t.Fatal(err)
	}
	if tree.MID != "ref:msg:a" || len(tree.Children) != 1 || tree.Children[0].MID != "ref:msg:b" ||
		len(tree.Children[0].Children) != 1 || tree.Children[0].Children[0].MID != "ref:msg:c" {
		t.Fatalf("tree %+v", tree)
	}
	if _, err := s.Thread(ctx, "ref:msg:zz"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	verifyOK(t, s)
}

func TestTrace(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	for _, b := range []string{
		`{"intent_id":"aql-7","issuer_did":"did:key:z","constraints":[]}`,
		`{"intent_id":"aql-7","session_id":"ps-1","amount":"10.00"}`,
		`{"intent_id":"aql-7","settlement_id":"st-1"}`,
		`{"receipt_id":"r-1","type":"settlement","action_id":"aql-7"}`,
		`{"receipt_id":"r-2","type":"settlement","action_id":"aql-8"}`,
		`{"intent_id":"aql-8","session_id":"ps-2"}`,
	} {
		mustPut(t, s, ctx, b)
	}
	got, err := s.Trace(ctx, "aql-7")
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, e := range got {
		roles = append(roles, e.Role)
	}
	if strings.Join(roles, ",") != "intent,payment_session,settlement_confirmation,receipt" {
		t.Fatalf("trace: %v", roles)
	}
	// A tenant's documents stay out of another reader's trace.
	mustPut(t, s, WithPrincipal(ctx, "did:key:alice"), `{"intent_id":"aql-7","session_id":"ps-3"}`)
	if got, _ := s.Trace(ctx, "aql-7"); len(got) != 4 {
		t.Fatalf("public trace sees %d documents", len(got))
	}
}

func TestDryRunSeesEarlierDocuments(t *testing.T) {
	s := openTest(t, nil)
	d := s.DryRun(context.Background())
	defer d.Close()
	if _, err := d.Put(Document{Body: ie(t, "env-d", nil)}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Put(Document{Body: ob(t, "env-d", "x", "executed", "2026-01-13T09:14:02Z")}); err != nil {
		t.Fatalf("OB after its IE in a dry run: %v", err)
	}
	if _, err := d.Put(Document{Body: ie(t, "env-d", map[string]any{"timestamp": "2026-01-13T09:15:00+02:00"})}); !errors.Is(err, ErrReplay) {
		t.Fatalf("replay in a dry run: %v", err)
	}
	if st, _ := s.Stats(context.Background()); st.Documents != 0 {
		t.Fatalf("a dry run stored %d documents", st.Documents)
	}
}

// The message fixtures, for the external test package (messages_query_test.go).
var (
	AIDPFixture       = aidpFixture
	ExecIntentFixture = execIntent
)
