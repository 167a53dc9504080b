package server

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

// handleConformance answers GET /oap-conformance-receipt.json, where OAP
// clients look for a tool's Conformance Receipt: the one the operator
// configured, verbatim (it carries its attestor's signatures, not the
// server's), else a 404 saying how to get one.
func (s *Server) handleConformance(w http.ResponseWriter, r *http.Request) {
	if s.cfg.ConformanceReceipt == nil {
		s.writeProblem(w, r, notFound("no Conformance Receipt is configured: run OAP's attest.js against this "+
			"server and start it with --conformance-receipt FILE (the receipt attest.js wrote)"))
		return
	}
	writeJSON(w, http.StatusOK, contentJSON, s.cfg.ConformanceReceipt)
}

// LoadConformanceReceipt reads a Conformance Receipt
// (oap-conformance-receipt.schema.json) to serve: a JSON object of type
// "conformance" with a receipt_id, claimed levels and signatures. The
// error names the file and the JSON Pointer of what is wrong.
func LoadConformanceReceipt(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("conformance receipt: %w", err)
	}
	v, err := canon.Decode(b, nil)
	if err != nil {
		return nil, fmt.Errorf("conformance receipt %s: %w", path, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("conformance receipt %s: at /: want a JSON object, the receipt OAP's attest.js writes", path)
	}
	if ptr, want := checkReceiptShape(m); ptr != "" {
		return nil, fmt.Errorf("conformance receipt %s: at %s: want %s (oap-conformance-receipt.schema.json)", path, ptr, want)
	}
	return bytes.TrimSpace(b), nil
}

// checkReceiptShape returns the pointer of the first member of a
// Conformance Receipt that is missing or wrong, and what it should be.
func checkReceiptShape(m map[string]any) (ptr, want string) {
	id, _ := m["receipt_id"].(string)
	levels, _ := m["claimed_levels"].([]any)
	sigs, _ := m["signatures"].([]any)
	switch {
	case m["type"] != "conformance":
		return "/type", `"conformance"`
	case !strings.HasPrefix(id, "urn:oap:conformance:"):
		return "/receipt_id", `a string "urn:oap:conformance:…"`
	case len(levels) == 0:
		return "/claimed_levels", "a non-empty array of levels, e.g. [\"L1\"]"
	case len(sigs) == 0:
		return "/signatures", "a non-empty array of signatures"
	}
	return "", ""
}
