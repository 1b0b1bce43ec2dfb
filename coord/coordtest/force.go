package coordtest

import (
	"time"

	"github.com/fencedstore/fence/coord"
)

// forced takes domain's lease for holder with Request.Force and checks
// the lease returned as acquire does.
func (s *suite) forced(domain, holder string, floor uint64) coord.Lease {
	s.t.Helper()
	now := s.clk.Now()
	l, err := s.c.TryAcquire(s.ctx(), coord.Request{Domain: domain, Holder: holder, TTL: ttl, Floor: floor, Force: true})
	if err != nil {
		s.t.Fatalf("TryAcquire(%q, holder %q, Force) while held: %v; want the lease taken", domain, holder, err)
	}
	if l.Domain != domain || l.Holder != holder || l.Token <= floor || !l.Expires.Equal(now.Add(ttl)) {
		s.t.Fatalf("TryAcquire(%q, holder %q, Force) = %+v; want that holder, a token above %d and expiry now+TTL", domain, holder, l, floor)
	}
	return l
}

// forceWhileHeld: a forced acquisition takes a live lease from another
// holder with a higher token; the old holder's Renew and Release then
// fail with ErrLeaseLost and leave the new lease as it is.
func (s *suite) forceWhileHeld() {
	d := s.domain("d")
	a := s.acquire(d, "A", 0)
	s.clk.Advance(time.Second) // A's lease is live for 9 more seconds
	b := s.forced(d, "B", 0)
	if b.Token <= a.Token {
		s.t.Fatalf("forced acquisition got token %d; want above the old holder's %d", b.Token, a.Token)
	}
	s.wantHeldBy(b)
	_, err := s.renew(a, ttl)
	s.wantLost("Renew by the holder whose lease was forced", err)
	s.wantLost("Release by the holder whose lease was forced", s.release(a))
	s.wantHeldBy(b)

	// Without Force, the forcer's lease is as exclusive as any other.
	_, err = s.c.TryAcquire(s.ctx(), coord.Request{Domain: d, Holder: "A", TTL: ttl})
	s.wantHeldError(err, b)
	if _, err := s.renew(b, ttl); err != nil {
		s.t.Fatalf("Renew of the forced lease: %v", err)
	}
}

// forceFreeAndFloor: Force on a free domain is an ordinary acquisition,
// it honours the floor, and TakeLease passes it on.
func (s *suite) forceFreeAndFloor() {
	d := s.domain("d")
	a := s.forced(d, "A", 0) // free: nobody to take it from
	s.wantHeldBy(a)
	b := s.forced(d, "B", a.Token+100)
	if b.Token <= a.Token+100 {
		s.t.Fatalf("forced acquisition with floor %d got token %d", a.Token+100, b.Token)
	}
	c, err := s.c.TakeLease(s.ctx(), d, &coord.TakeOptions{Holder: "C", TTL: ttl, Force: true, Clock: s.clk})
	if err != nil {
		s.t.Fatalf("TakeLease(Force) while B holds the lease: %v", err)
	}
	if c.Token <= b.Token {
		s.t.Fatalf("TakeLease(Force) got token %d; want above %d", c.Token, b.Token)
	}
	s.wantLost("Release by B after C forced the lease", s.release(b))
	s.mustRelease(c)
	s.wantReleased(d, c.Token)
}
