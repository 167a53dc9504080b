package server

import (
	"net/http"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/sign"
)

// handleDID answers GET /.well-known/did.json: the did:web document whose
// verification method is the resolver's Ed25519 key (publicKeyMultibase,
// the did:key form), with the resolver's did:key in alsoKnownAs. Every
// signature the server writes verifies under this key.
func (s *Server) handleDID(w http.ResponseWriter, r *http.Request) {
	doc := sign.DIDDocument(s.cfg.Signer, s.DIDWeb())
	writeJSON(w, http.StatusOK, contentJSON, canon.AppendValue(nil, doc))
}
