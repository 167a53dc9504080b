// Package index will hold aqlstore's roaring-bitmap path indexes: the path
// dictionary and the equality, existence, range and n-gram postings that
// give the AQL planner a candidate set without a full scan. Until it lands,
// queries check every stored candidate (see package query).
package index
