package objstore

import (
	"context"
	"fmt"
	"sync"
)

// TokenIssuer tells a Store which token its coordinator issued last, so
// that only that token can raise a domain's highest token (or create the
// domain). A token never issued (a typo such as --token 1000, or a
// foreign client) would otherwise fence the real holder out, and one near
// MaxToken would leave a domain no one could lease again; an older token
// belongs to a holder whose lease has ended, and where the store lost the
// domain's manifest it would otherwise create the domain anew at that
// stale token. fence.Issuer adapts a coord.Coordinator.
type TokenIssuer interface {
	// LastIssued returns the last token the coordinator issued for
	// domain, 0 when it never issued one, with a consistent read.
	LastIssued(ctx context.Context, domain string) (uint64, error)
}

// issued remembers, per domain, the newest token the issuer reported, so
// that a Store asks once per new token, not once per commit.
type issued struct {
	mu sync.Mutex
	m  map[string]uint64
}

// NoteIssued tells the Store that its Issuer has just issued token for
// domain, so that the commit that fences with it need not ask the issuer
// again. fence.Acquire calls it with the token of the lease it has just
// taken, which saves the takeover one round trip. It is for code that has
// the token from the issuer's own answer: a token noted that was never
// issued passes this Store's issuer check (fencing itself is unchanged).
func (s *Store) NoteIssued(domain string, token uint64) {
	if s.opts.Issuer == nil {
		return
	}
	s.issued.mu.Lock()
	defer s.issued.mu.Unlock()
	if s.issued.m == nil {
		s.issued.m = make(map[string]uint64)
	}
	if len(s.issued.m) >= maxCachedDomains {
		clear(s.issued.m)
	}
	s.issued.m[domain] = max(s.issued.m[domain], token)
}

// checkIssued fails, before anything is written, when token would raise
// domain's highest token (or create the domain) and is not the token the
// Store's issuer issued last: an *InvalidError for a token never issued, a
// *FencedError for an older one. Without an issuer (Options.Issuer nil)
// every token in range is trusted.
func (s *Store) checkIssued(ctx context.Context, domain string, token uint64) error {
	if s.opts.Issuer == nil {
		return nil
	}
	s.issued.mu.Lock()
	last := s.issued.m[domain]
	s.issued.mu.Unlock()
	if token > last {
		var err error
		if last, err = s.opts.Issuer.LastIssued(ctx, domain); err != nil {
			return fmt.Errorf("objstore: commit to %q: ask the coordinator whether it issued token %d: %w", domain, token, err)
		}
	}
	switch {
	case token < last:
		return &FencedError{Domain: domain, Token: token, Issued: last}
	case token > last:
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
