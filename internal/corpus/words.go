package corpus

// Word pools for the random (uncontrolled) parts of documents. They must
// never contain a controlled value ("sel_…", "LI", "irreversible",
// "clearance", "quantum_gravity", "urgent", "outage"), or a predicate would
// match more documents than ExpectedCount says; TestPoolsAvoidControlledValues
// guards that. Every entry is plain ASCII without quotes or backslashes, so
// it may be written with enc.lit.

var adjectives = []string{
	"Swift", "Bright", "Quiet", "Solid", "Nimble", "Clear", "Rapid", "Steady",
	"Lucid", "Keen", "Open", "Prime", "Silver", "Northern", "Civic", "Agile",
}

var nouns = []string{
	"Ledger", "Courier", "Atlas", "Harbor", "Signal", "Compass", "Beacon",
	"Forge", "Relay", "Archive", "Scout", "Bridge", "Canvas", "Pulse",
	"Quarry", "Orbit",
}

var capabilities = []string{
	"invoice processing", "parcel tracking", "hotel booking", "flight search",
	"tax calculation", "document translation", "energy price forecasts",
	"legal document review", "product search", "payment reconciliation",
	"appointment scheduling", "weather alerts", "address validation",
	"currency conversion", "fleet telemetry", "recipe planning",
}

var audiences = []string{
	"small businesses", "logistics teams", "travel agents", "accountants",
	"retailers", "public administrations", "research groups", "households",
}

var toolCategories = []string{
	"finance", "travel", "logistics", "commerce", "legal", "energy",
	"productivity", "translation", "health", "weather", "mobility",
	"food", "insurance", "real_estate", "education", "media",
}

var surnames = []string{
	"Keller", "Dubois", "Rossi", "Novak", "Jansen", "Lindqvist", "Moreau",
	"Fischer", "Kowalski", "Silva", "Horvat", "Andersen", "Costa", "Weber",
	"Nieminen", "Ortega",
}

var legalForms = []string{"GmbH", "SAS", "S.r.l.", "B.V.", "AB", "Oy", "S.L.", "AG"}

// countries are ISO 3166 codes; jurisdictions additionally has "EU".
var countries = []string{"DE", "FR", "IT", "NL", "SE", "FI", "ES", "AT", "PL", "PT", "BE", "DK"}

var jurisdictions = []string{
	"EU", "DE", "FR", "IT", "NL", "SE", "FI", "ES", "AT", "PL", "PT", "BE",
	"DK", "IE", "CZ", "GR",
}

var regions = []string{"eu-west", "eu-central", "eu-north", "eu-south"}

// actionKinds pairs an action id with its summary.
var actionKinds = []struct{ id, summary string }{
	{"search", "Search the catalogue."},
	{"get_quote", "Return a price quote."},
	{"create_booking", "Create a booking."},
	{"cancel_booking", "Cancel a booking."},
	{"get_status", "Return the status of a request."},
	{"issue_refund", "Issue a refund."},
	{"export_data", "Export the principal's data."},
	{"subscribe_updates", "Subscribe to updates."},
}

// sideEffects leaves out "irreversible", which is controlled.
var sideEffects = []string{"none", "read", "write", "external"}

var irreversibilityClasses = []string{
	"legal_status_change", "immovable_property", "irreversible_financial", "public_disclosure",
}

var authMethods = []string{"anonymous", "api_key", "oauth2_1", "oap_trust_token", "mtls"}

var trainingPolicies = []string{"never", "with_consent", "by_default"}

var lawfulBases = []string{"consent", "contract", "legal_obligation", "legitimate_interests"}

var levels = []string{"L1", "L2", "L3"}

var productCategories = []string{
	"running_shoes", "hiking_boots", "rain_jackets", "backpacks", "tents",
	"bicycles", "helmets", "headphones", "laptops", "coffee_machines",
	"desk_chairs", "cookware", "board_games", "garden_tools", "e_readers",
	"smart_watches",
}

// offerTags leaves out "clearance", which is controlled.
var offerTags = []string{
	"new", "bestseller", "eco", "refurbished", "bundle", "limited",
	"free_shipping", "warranty_3y", "vegan", "handmade", "imported", "local",
}

// topics leaves out "quantum_gravity", which is controlled.
var topics = []string{
	"renewable_energy", "grid_storage", "supply_chains", "public_health",
	"machine_learning", "urban_planning", "climate_policy", "cryptography",
	"agriculture", "water_management", "labour_law", "astronomy",
	"materials_science", "linguistics", "economics", "oceanography",
}

// priorities leaves out "urgent", which is controlled.
var priorities = []string{"low", "normal", "normal", "normal", "high"}

// vocabulary feeds body texts; no word contains "outage".
var vocabulary = []string{
	"the", "agent", "request", "offer", "price", "delivery", "status",
	"confirmed", "pending", "invoice", "shipment", "schedule", "contract",
	"report", "update", "customer", "order", "tool", "result", "quote",
	"budget", "approved", "review", "window", "region", "storage", "grid",
	"model", "data", "policy", "signal", "latency", "a", "of", "for", "and",
	"to", "in", "with", "after", "before", "per", "new", "next", "final",
	"summary", "energy", "route", "capacity", "forecast", "demand", "supply",
	"audit", "record", "session", "ticket", "service", "network", "node",
	"measurement", "average", "peak", "daily", "weekly",
}
