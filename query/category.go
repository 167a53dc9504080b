package query

import (
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// categoryKinds maps an intent category to the kinds it answers. Generic
// JSON and candidate-shape documents answer every category; message kinds
// only when the caller names them (Options.Kinds).
var categoryKinds = map[aql.Category][]canon.Kind{
	aql.CategoryDiscovery:    {canon.KindManifest, canon.KindAction},
	aql.CategoryCommercial:   {canon.KindOffer},
	aql.CategoryKnowledge:    {canon.KindKnowledge},
	aql.CategoryAction:       {canon.KindAction},
	aql.CategoryDelegation:   {canon.KindManifest},
	aql.CategorySubscription: {canon.KindManifest, canon.KindAction, canon.KindOffer, canon.KindKnowledge},
}

// CategoryKinds returns the kinds an intent of category c is resolved
// against, in the order they are scanned.
func CategoryKinds(c aql.Category) []canon.Kind {
	return append(append([]canon.Kind(nil), categoryKinds[c]...), canon.KindCandidate, canon.KindJSON)
}
