package coord

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/fencedstore/fence/rules"
)

// Limits on what a request may ask for.
const (
	// DefaultTTL is the lease duration used when none is given.
	DefaultTTL = 10 * time.Second
	// MinTTL and MaxTTL bound a lease's duration.
	MinTTL = 100 * time.Millisecond
	MaxTTL = 24 * time.Hour
	// MaxHolderLen is the longest holder name accepted, in bytes.
	MaxHolderLen = 256
)

// ValidateDomain reports whether domain can name an ownership domain
// (rules.ValidateDomain, as objstore checks it).
func ValidateDomain(domain string) error { return rules.ValidateDomain(domain) }

// ValidateHolder reports whether holder can name a lease holder: 1 to
// MaxHolderLen bytes of UTF-8 without control characters. (Holders are
// compared byte for byte and stored as text, so anything else could not
// be recognised when read back.)
func ValidateHolder(holder string) error {
	bad := func(reason string) error { return &InvalidError{What: "holder", Value: holder, Reason: reason} }
	switch {
	case holder == "":
		return bad("empty; a holder must name who holds the lease")
	case len(holder) > MaxHolderLen:
		return bad(fmt.Sprintf("%d bytes, over the limit of %d", len(holder), MaxHolderLen))
	case !utf8.ValidString(holder):
		return bad("not valid UTF-8")
	}
	for _, r := range holder {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return bad(fmt.Sprintf("contains control character %U", r))
		}
	}
	return nil
}

// ValidateTTL reports whether ttl is between MinTTL and MaxTTL.
func ValidateTTL(ttl time.Duration) error {
	if ttl < MinTTL || ttl > MaxTTL {
		return &InvalidError{What: "ttl", Value: ttl.String(), Reason: fmt.Sprintf("must be between %s and %s", MinTTL, MaxTTL)}
	}
	return nil
}

// ValidateRequest checks every field of req: domain, holder, TTL, and a
// Floor below rules.MaxToken (so that a token above it exists).
// Coordinator.TryAcquire and TakeLease check with it before calling the
// driver.
func ValidateRequest(req Request) error {
	if err := ValidateDomain(req.Domain); err != nil {
		return err
	}
	if err := ValidateHolder(req.Holder); err != nil {
		return err
	}
	if err := ValidateTTL(req.TTL); err != nil {
		return err
	}
	if req.Floor >= rules.MaxToken {
		return &InvalidError{What: "floor", Value: strconv.FormatUint(req.Floor, 10), Reason: fmt.Sprintf("must be below the maximum token %d", uint64(rules.MaxToken))}
	}
	return nil
}

// ValidateLease checks that l names a domain, a holder and a token in
// 1..rules.MaxToken. Coordinator.Renew and Release check with it before
// calling the driver.
func ValidateLease(l Lease) error {
	if err := ValidateDomain(l.Domain); err != nil {
		return err
	}
	if err := ValidateHolder(l.Holder); err != nil {
		return err
	}
	if l.Token == 0 || l.Token > rules.MaxToken {
		return &InvalidError{What: "token", Value: strconv.FormatUint(l.Token, 10), Reason: fmt.Sprintf("must be between 1 and %d", uint64(rules.MaxToken))}
	}
	return nil
}
