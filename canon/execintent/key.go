package execintent

// keySep joins the parts of a composite key; Parse rejects U+0000 in
// every key part, so distinct pairs never give equal keys.
const keySep = "\x00"

// Key returns the intent's natural key, its intentId.
func (in *Intent) Key() string { return in.IntentID }

// ReplayKey returns the idempotency key of the intent, scoped to its
// tenant: ReplayKey(TenantID, IdempotencyKey). The store keeps it unique,
// so a retried intent is recognized as the same request.
func (in *Intent) ReplayKey() string { return ReplayKey(in.TenantID, in.IdempotencyKey) }

// NonceKey returns the nonce scoped to the tenant: NonceKey(TenantID,
// Nonce). Scoping by tenant keeps one tenant from blocking another's
// intents by spending their nonces first.
func (in *Intent) NonceKey() string { return NonceKey(in.TenantID, in.Nonce) }

// ReplayKey joins a tenantId and an idempotencyKey into one key.
func ReplayKey(tenantID, idempotencyKey string) string { return tenantID + keySep + idempotencyKey }

// NonceKey joins a tenantId and a nonce into one key.
func NonceKey(tenantID, nonce string) string { return tenantID + keySep + nonce }
