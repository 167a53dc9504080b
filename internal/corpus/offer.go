package corpus

// sellerCount bounds the sellers, so sellers have many offers.
const sellerCount = 5000

// offerSpecs serves the candidate kind too: its record is the offer, and
// its predicate paths are relative to the record (PredicateRoot).
func offerSpecs() []spec {
	return append(bucketSpecs("/bucket"),
		priceSpec("/price/amount"),
		afterSpec("/valid_from", fieldTime),
		newSpec("tag_contains_1pct", "/tags", "contains", "clearance", fieldTag, 0, rank1pct),
		newSpec("stock_zero_10pct", "/inventory/available", "eq", 0, fieldStock, 0, rank10pct),
	)
}

// offer holds an offer's drawn values. The candidate kind draws the same
// offer as its record and then needs its price for the cost, so values are
// drawn first and written second.
type offer struct {
	seller    int
	category  string
	bucket    string
	cents     int64
	currency  string
	available int
	validFrom int64
	validDays int
	tags      [4]string
	nTags     int
}

// drawOffer draws offer s.i. The draw order is part of the corpus's bytes.
func drawOffer(s *source) offer {
	o := offer{
		seller:   s.intn(sellerCount),
		category: s.pick(productCategories),
		bucket:   s.bucket(),
		cents:    s.price(),
		currency: "EUR",
	}
	if !s.hit(fieldStock, rank10pct) {
		o.available = s.between(1, 500)
	}
	o.validFrom = s.instant(fieldTime)
	o.validDays = s.between(7, 365)
	first := s.intn(len(offerTags))
	for j := range s.between(0, 3) {
		o.tags[j] = offerTags[(first+j)%len(offerTags)]
		o.nTags++
	}
	if s.hit(fieldTag, rank1pct) {
		o.tags[o.nTags] = "clearance"
		o.nTags++
	}
	return o
}

func writeOffer(e *enc, s *source) {
	o := drawOffer(s)
	o.write(e, s)
}

func (o *offer) write(e *enc, s *source) {
	e.obj()
	e.key("offer_id")
	e.id("offer-", s.seed, s.i)
	e.key("seller_did")
	e.strStart()
	e.lit("did:web:seller-")
	e.num(uint64(o.seller))
	e.lit(".example")
	e.strEnd()
	e.kStr("category", o.category)
	e.kStr("bucket", o.bucket)
	e.key("price")
	e.obj()
	e.key("amount")
	e.decimal(o.cents)
	e.kStr("currency", o.currency)
	e.objEnd()
	e.key("inventory")
	e.obj()
	e.kInt("available", o.available)
	e.objEnd()
	e.key("valid_from")
	e.instant(o.validFrom)
	e.key("valid_to")
	e.instant(o.validFrom + int64(o.validDays)*day)
	e.key("tags")
	e.arr()
	for _, t := range o.tags[:o.nTags] {
		e.str(t)
	}
	e.arrEnd()
	e.objEnd()
}
