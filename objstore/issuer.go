package objstore

import (
	"context"
	"fmt"
	"sync"
)

// TokenIssuer tells a Store which tokens its coordinator has issued, so
// that a commit cannot raise a domain's highest token to one that was
// never issued: a typo (--token 1000) or a foreign client would otherwise
// fence the real holder out, and a token near MaxToken would leave a
// domain that no one could lease again. fence.Issuer adapts a
// coord.Coordinator.
type TokenIssuer interface {
	// LastIssued returns the last token the coordinator issued for
	// domain, 0 when it never issued one, with a consistent read.
	LastIssued(ctx context.Context, domain string) (uint64, error)
}

// issued remembers, per domain, the highest token the issuer confirmed,
// so that a Store asks once per new token, not once per commit.
type issued struct {
	mu sync.Mutex
	m  map[string]uint64
}

// checkIssued fails, before anything is written, when token would raise
// domain's highest token and the Store's issuer never issued it. Without
// an issuer (Options.Issuer nil) every token in range is trusted.
func (s *Store) checkIssued(ctx context.Context, domain string, token uint64) error {
	if s.opts.Issuer == nil {
		return nil
	}
	s.issued.mu.Lock()
	known := s.issued.m[domain]
	s.issued.mu.Unlock()
	if token <= known {
		return nil
	}
	last, err := s.opts.Issuer.LastIssued(ctx, domain)
	if err != nil {
		return fmt.Errorf("objstore: commit to %q: check that the coordinator issued token %d: %w", domain, token, err)
	}
	if token > last {
		reason := fmt.Sprintf("the coordinator never issued it for domain %q (its last token there is %d); only a token from a lease acquisition may raise the domain's highest token", domain, last)
		if last == 0 {
			reason = fmt.Sprintf("the coordinator never issued a token for domain %q; acquire a lease first", domain)
		}
		return &InvalidError{What: "token", Value: fmt.Sprint(token), Reason: reason}
	}
	s.issued.mu.Lock()
	if s.issued.m == nil {
		s.issued.m = make(map[string]uint64)
	}
	if len(s.issued.m) >= maxCachedDomains {
		clear(s.issued.m)
	}
	s.issued.m[domain] = max(s.issued.m[domain], last)
	s.issued.mu.Unlock()
	return nil
}
