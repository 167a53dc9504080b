package aql

var paymentShape = &shape{what: "payment_constraints", fields: []field{
	{"allowed_instruments", false, `instrument names such as ["sepa-instant"]`},
	{"disallowed_instruments", false, `instrument names such as ["lightning_network"]`},
	{"preferred_instrument", false, `an instrument name such as "sepa-instant"`},
	{"max_single_payment", false, `{"amount": "500.00", "currency": "EUR"}`},
	{"require_bank_account_vc", false, "true or false"},
	{"allowed_commerce_primitives", false, `primitive names such as ["retail_purchase"]`},
	{"settlement_currency_preference", false, currencyHint},
	{"auction_parametric_session", false, "true or false"},
}}

// paymentChecks check one member of payment_constraints.
var paymentChecks = map[string]func(c *checker, v any, ptr, what string){
	"allowed_instruments":            (*checker).names,
	"disallowed_instruments":         (*checker).names,
	"preferred_instrument":           (*checker).name,
	"max_single_payment":             (*checker).maxPayment,
	"require_bank_account_vc":        (*checker).flag,
	"allowed_commerce_primitives":    (*checker).names,
	"settlement_currency_preference": (*checker).currency,
	"auction_parametric_session":     (*checker).flag,
}

// payment checks the payment_constraints block of RFC 0020 Appendix B.1,
// which the published schema predates: its members are typed here so that
// a Wallet never receives a constraint it cannot read. Whether the
// category allows the block at all is categoryRules' business.
func (c *checker) payment(v any, ptr string, in *Intent) {
	c.extend(func() {
		m, ok := c.object(v, ptr, "payment_constraints")
		if !ok {
			return
		}
		c.members(m, ptr, paymentShape)
		for _, f := range paymentShape.fields {
			if x, ok := m[f.name]; ok {
				paymentChecks[f.name](c, x, child(ptr, f.name), "payment_constraints."+f.name)
			}
		}
		in.PaymentConstraints = m
	})
}

// names checks an array of non-empty names.
func (c *checker) names(v any, ptr, what string) {
	a, ok := v.([]any)
	if !ok {
		c.schemaf(ptr, CodeBadType, `%s must be an array of names such as ["sepa-instant"], not %s`, what, describe(v))
		return
	}
	for i, e := range a {
		c.name(e, elem(ptr, i), what+" element")
	}
}

// name checks a non-empty name.
func (c *checker) name(v any, ptr, what string) {
	if s, ok := c.str(v, ptr, what); ok && s == "" {
		c.schemaf(ptr, CodeBadValue, "%s must not be empty; write the name or remove it", what)
	}
}

func (c *checker) flag(v any, ptr, what string) { c.boolean(v, ptr, what) }

func (c *checker) currency(v any, ptr, what string) {
	c.pattern(v, ptr, what, currencyPattern, currencyHint)
}

var moneyShape = &shape{what: "max_single_payment", fields: []field{
	{"amount", true, `a decimal string such as "500.00"`},
	{"currency", true, currencyHint},
}}

// maxPayment checks {amount, currency}, typed like the budget's.
func (c *checker) maxPayment(v any, ptr, what string) {
	m, ok := c.object(v, ptr, what)
	if !ok {
		return
	}
	c.members(m, ptr, moneyShape)
	if x, ok := m["amount"]; ok {
		c.amount(x, child(ptr, "amount"), what+".amount")
	}
	if x, ok := m["currency"]; ok {
		c.currency(x, child(ptr, "currency"), what+".currency")
	}
}
