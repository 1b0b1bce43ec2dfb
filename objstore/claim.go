package objstore

import "sync"

// A claim makes the commits at one token of one domain, through one Store,
// claim that token the way a fence does: the first of them to land must be
// the commit that raises the domain's highest token to it. A commit at the
// token that finds the domain already raised there by a commit that is not
// one of the claim's own fails with a *FencedError whose ClaimedBy names
// that commit, before it writes anything. fence.Acquire with NoFence
// registers one instead of fencing, so that a job's first commit fences
// the domain and claims the token in the same conditional write: the
// takeover saves the fence's round trip, and a token a wiped coordinator
// issued twice still admits one holder only.
type claim struct {
	token uint64
	ids   map[string]bool // the commits made under the claim (guarded by claims.mu)
}

// claims holds the Store's claims, one per domain: the newest.
type claims struct {
	mu sync.Mutex
	m  map[string]*claim
}

// Claim makes the commits at token to domain through s claim the token:
// until one of them lands, a commit at token fails with a *FencedError
// (ClaimedBy set) if another commit, not made through s under this claim,
// has already raised the domain's highest token to token. It replaces
// the domain's earlier claim, if any.
//
// fence.Acquire calls it with AcquireOptions.NoFence. The claim lives in
// s: a commit at the same token through another Store, or in another
// process, does not claim.
func (s *Store) Claim(domain string, token uint64) {
	s.claims.mu.Lock()
	defer s.claims.mu.Unlock()
	if s.claims.m == nil {
		s.claims.m = make(map[string]*claim)
	}
	if _, ok := s.claims.m[domain]; !ok && len(s.claims.m) >= maxCachedDomains {
		clear(s.claims.m) // a forgotten claim only costs its check
	}
	s.claims.m[domain] = &claim{token: token, ids: make(map[string]bool)}
}

// claimFor returns domain's claim at token, with commit id recorded as one
// of its own, or nil when the commit claims nothing.
func (s *Store) claimFor(domain string, token uint64, id string) *claim {
	s.claims.mu.Lock()
	defer s.claims.mu.Unlock()
	cl := s.claims.m[domain]
	if cl == nil || cl.token != token {
		return nil
	}
	cl.ids[id] = true
	return cl
}

// claimAdd records commit id as one of cl's own (the fence that creates a
// domain's manifest for a claiming commit).
func (s *Store) claimAdd(cl *claim, id string) {
	if cl == nil {
		return
	}
	s.claims.mu.Lock()
	cl.ids[id] = true
	s.claims.mu.Unlock()
}

// claimOwns reports whether commit id was made under cl.
func (s *Store) claimOwns(cl *claim, id string) bool {
	if cl == nil || id == "" {
		return false
	}
	s.claims.mu.Lock()
	defer s.claims.mu.Unlock()
	return cl.ids[id]
}

// claimSettle drops cl once a commit under it has landed, or the domain has
// moved past its token: later commits need no check.
func (s *Store) claimSettle(domain string, cl *claim) {
	if cl == nil {
		return
	}
	s.claims.mu.Lock()
	if s.claims.m[domain] == cl {
		delete(s.claims.m, domain)
	}
	s.claims.mu.Unlock()
}
