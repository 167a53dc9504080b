// Package project applies an intent's projection block (RFC 0020 §3.3) to
// a candidate document: the payload a response carries for it.
//
// Apply is the whole package; ApplyRaw is Apply over a document's
// canonical bytes, with the same result, decoding only the subtrees the
// payload keeps. The semantics (the README, "AQL"):
//
//   - include pointers select fields, with the extended syntax of
//     canon.Pointer (`*` every child, `**` the node and every descendant;
//     "" and "/" the whole document). A selected node comes with its whole
//     subtree.
//   - exclude pointers remove fields, and win over include at any depth:
//     include /price with exclude /price/internal keeps price without
//     internal; exclude /price with include /price/amount keeps nothing of
//     price.
//   - The payload keeps the document's shape: selecting /price/amount
//     yields {"price":{"amount":…}}. Objects on the way to a selected node
//     hold only what was selected under them, and are left out when nothing
//     under them survives exclusion.
//   - Arrays keep only the elements that contributed, in document order:
//     /actions/*/id over three actions of which two have an id yields
//     {"actions":[{"id":…},{"id":…}]}, and exclude /tags/0 drops the first
//     tag. Array indices in the payload may therefore differ from the
//     document's; a selected array comes whole unless something in it is
//     excluded. That is why an intent's include may not name an element by
//     position (aql.IncludeByPosition): it would come back at another one.
//   - An include pointer that selects nothing is reported in missing, as
//     written: the caller records a projection failure (R4). An include
//     whose every match is excluded is not missing: the intent asked for
//     both.
//   - The payload is always an object, as oap-intent-response.schema.json
//     requires; a document that is not an object is ErrNotObject.
//
// Apply copies every value it puts in the payload, so the payload never
// shares a map or slice with the document. Apply is a pure function, safe
// for concurrent use, and deterministic: the same document and pointers
// give the same payload and the same missing list.
package project
