// Package pairl reads PAIRL v1.1 messages (../shared/spec/pairl-v1.1.md)
// as first-class aqlstore documents: parse with line positions,
// canonicalize (§8), hash, validate (V1–V8, §10) in loose and strict modes
// with structured problems (§12.4), render for humans (§11), and map to a
// JSON view for indexing and AQL.
//
// There are only a few things in pairl:
//
//   - Parse / ParseLimits: bytes → *Message (Headers and Records, each with
//     its line) plus the syntax Problems. Both modes read the same way; the
//     mode decides which findings are errors. Later PAIRL constructs (v1.2
//     tool records, v1.3 turn markers and @m, v1.4 @id/@sid/@p, v1.5
//     columnar blocks and #req/#rpt/#s) are read where cheap: kept as
//     TypeOther records or extra headers (columnar rows are expanded into
//     ordinary records) with a LATER warning in loose mode; strict mode
//     turns those into errors.
//   - Canonical / AppendCanonical / (*Message).Canonical: the §8 form.
//     (*Message).Hash: `ref:hash:sha256:<hex>` over that form without the
//     @hash line, LF after every line including the last.
//   - Validate(m, Options) and ValidateThread(msgs, Options): every problem,
//     syntax findings included. Cross-message rules reach other messages
//     through the Thread interface (Lookup by @mid), which the store
//     implements; MessageSet is an in-memory Thread. Err turns a problem
//     list into one Go error.
//   - Render: plain text for a human endpoint.
//   - (*Message).View: the JSON view; (*Message).MID: the natural key.
//
// Messages are immutable once parsed (no function here modifies one), so
// they are safe for concurrent use; every returned slice, map and string is
// the caller's. Nothing panics on any input: the fuzz target checks that,
// and that canonical output is a fixed point of parse → canonicalize.
//
// # Problems
//
// A Problem has a Code, a Line (1-based, of the parsed input), a
// Description, a Fix and a Severity. Codes V1–V8 are the spec's rules;
// HEADER, BLANK, EOL, RECORD, INTENT, RID, LATER, LIMIT, UTF8, BUDGET,
// QUOTA and THREAD name the §12.1 categories the spec leaves unnamed.
// Severities follow the spec's wording: what it calls an error or a MUST
// (missing @v/@mid/@ts, V2, V3, V4 when strict_refs is on, V5, V6, V8, a
// repeated v1.1 header, an unreadable columnar block) is an error in both
// modes; what it leaves to strict mode or "log warning" (V1, V7, malformed
// or unknown records, intent parameter values, RID form, later-version
// constructs, blank-line and CR LF rules) is an error in strict mode and a
// warning in loose mode; pure advice (a #quota without used=, quota sums,
// costs in a unit other than the budget's) is a warning in both.
//
// # JSON view
//
// (*Message).View maps a message to the canon value model. Headers:
//
//	"v"       canon.Number (a string if not a JSON integer literal)
//	"mid", "ts", "root", "parent", "hash"   strings, as written
//	"deps"    []any of strings, in written order
//	"budget"  {"amount": "0.50", "unit": "USD"} — money stays a decimal string
//	"limit"   {"amount": canon.Number, "unit": "t"}
//	          (a malformed @budget/@limit stays the raw string)
//	"headers" {name: value} for every other header (later or unknown)
//	"records" []any, one object per record, in message order
//
// Of repeated headers or keys the first wins. Every record object has
// "type" and, when present, "rid" (lowercase) and "tags" ({name: value}
// of later-version trailing tags such as @m). Per type:
//
//	intent  {"type":"intent", "intent":"req", "params":{"t":"specs","s":"f",…}}
//	        bare parameters go to "args": ["…"]
//	fact    {"type":"fact", "key":"deadline", "value":"2026-02-05"}
//	ref     {"type":"ref",  "key":"specs",    "value":"ref:doc:sha256:…"}
//	rule    {"type":"rule", "key":"no_new_facts", "value":"true"}
//	evid    {"type":"evid", "claim":"…", "src":"ref:…", "conf":canon.Number}
//	cost    {"type":"cost", "val":"0.02", "cur":"USD", "model":"…", "note":"…"}
//	        val is money and stays a decimal string
//	quota   {"type":"quota", "resource":"tokens", "total":N, "used":N, "rem":N}
//	        the #quota "type" key is renamed "resource" (it would clash with
//	        the record type); total/used/rem are canon.Number
//	other   {"type":"other", "tag":"call", "fields":{…}, "args":[…]}
//	opaque  {"type":"opaque", "raw":"the unreadable line"}
//
// Fact, ref and rule values are strings, never numbers: a fact is an exact
// term (§5.1) and "12000" must not become 12000.0; AQL compares decimal
// strings exactly anyway. Fields a type does not define, and extra fields
// of a malformed #fact, go to "fields" ({key: value}) or "args" (bare
// values). So `/records/*/key eq "deadline"` finds a fact, and
// `/records/*/type eq "cost"` every cost record. Numbers use canon.Number
// only when the text is a JSON number literal (no exponent, no leading
// zeros); otherwise they stay strings.
//
// # Decisions where v1.1 is open or inconsistent
//
//   - @hash: the README's rule (the upstream clarification of v1.1): drop
//     every @hash line, canonicalize, LF after every line, SHA-256, lowercase
//     hex. V5 compares the text exactly; a value that is not
//     ref:hash:sha256:<hex> is a V5 error too.
//   - Canonical headers: §8.1 order (@root before @parent). Later headers sit
//     where v1.6 puts them (@id after @v, @sid after @mid, @p before
//     @parent) and unknown ones follow @limit sorted by name, so loose-mode
//     hashes of v1.6 messages match v1.6 where v1.1 allows.
//   - Quoting: canonicalization never changes whether a value is quoted —
//     §8 does not list it, and V2 gives it meaning (claim must be quoted).
//     (v1.6 re-quotes; its hashes of messages with needlessly quoted values
//     therefore differ.)
//   - Intents always get braces (`ack` → `ack{}`): §4 recommends them "for
//     uniformity" and a canonical form must not tell the two apart. RIDs are
//     lowercased (§3.2) and compared case-insensitively by V6.
//   - §7.2 allows literal newlines in quoted strings, so a record is a
//     logical line that ends at the first LF outside quotes. A quote left
//     open to the end of input ends at its own line instead (and is an error).
//   - Refs (V3): at least `ref:<ns>:<id>`; §10 says ref:<ns>:<type>:<id> "at
//     minimum" but §2.1 mandates ref:msg:<id>. An optional #<rid> fragment is
//     allowed (§9.2). @root/@parent/@deps must be ref:msg:<id>.
//   - V1 runs in strict mode and under `#rule no_new_facts=true`; the §4.1
//     enumerations (l=0..3, m=0, …) are exempt from the digit check, or the
//     spec's own examples would fail it.
//   - V4 also covers @deps, and needs a Thread: without one it is skipped.
//   - V7: edges are @parent and @deps (@root is a label); an edge to the
//     message itself is caught without a Thread.
//   - V8: nearest-budget scopes, bids and budget refusals excluded (see
//     budget.go); costs in another unit are not converted, only noted.
//   - #quota `used` is required by §6.2 but omitted by the spec's own bid
//     examples: its absence is a warning.
//   - Unreadable lines are kept verbatim (TypeOpaque) rather than skipped
//     (§12.3), so nothing is lost; an unreadable columnar block is kept
//     verbatim as a whole and ends with an empty line in canonical form.
//   - A message that starts with an empty line has an empty header block.
//   - A leading byte order mark is dropped (it would hide the first
//     header) and reported as UTF8: a warning in loose mode, an error in
//     strict mode; it is not part of the canonical form or the hash.
//   - Layout is not validity: header order, extra spaces, tabs and RID case
//     are normalized by canonicalization and accepted in strict mode too;
//     extra empty lines and CR LF endings are not (§8.2, §8.5). A lone CR
//     separates tokens like a space.
//   - `cmp` is listed twice in §4.2; Render uses the first meaning.
//
// Limits (Limits, DefaultMaxBytes 1 MiB, DefaultMaxLineBytes 64 KiB,
// DefaultMaxRecords 1000, DefaultMaxWalk 100000) bound the input and the
// thread walk; crossing one is an *Error naming the line.
package pairl
