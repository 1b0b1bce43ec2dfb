package objstore

import "github.com/fencedstore/fence/rules"

// Limits on what a Store accepts (the rules package's).
const (
	// MaxKeyLen is the longest key or domain accepted, in bytes.
	MaxKeyLen = rules.MaxKeyLen
	// MaxToken is the largest token accepted.
	MaxToken = rules.MaxToken
)

// ValidateKey reports whether key can name an object in a domain
// (rules.ValidateKey).
func ValidateKey(key string) error { return rules.ValidateKey(key) }

// ValidateDomain reports whether domain can name an ownership domain
// (rules.ValidateDomain).
func ValidateDomain(domain string) error { return rules.ValidateDomain(domain) }

// ValidateToken reports whether token is in the accepted range
// 1..MaxToken (rules.ValidateToken).
func ValidateToken(token uint64) error { return rules.ValidateToken(token) }
