// Package coordtest is the conformance suite every coord.Driver passes.
// A driver's package test runs it in a few lines:
//
//	func TestConformance(t *testing.T) {
//		coordtest.Run(t, func(t *testing.T, clk coord.Clock) coord.Driver {
//			return bucketlease.New(memstore.New(), &bucketlease.Options{Clock: clk})
//		}, nil)
//	}
//
// The suite calls each driver through coord.New, as users do, and fails
// if the driver receives an argument the coord.Coordinator should have
// rejected. newDriver is called once per subtest with the clock the
// driver must judge and stamp expiry with: usually a *FakeClock,
// which the suite advances to test expiry without sleeping, and a
// coord.SystemClock for the subtests that run a coord.Session. It should
// register any cleanup (a throwaway table, a temporary directory) with
// t.Cleanup.
//
// Every subtest uses its own random domains, so the coordinator's store
// need not be empty and may be shared between subtests. Each call may be a
// network round trip: the concurrent subtests use 16 goroutines and 80
// acquisitions at most.
package coordtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// Options tunes Run. nil means defaults.
type Options struct {
	// Wipe destroys domain's lease record behind the driver's back (an
	// operator's destructive reset); d is what newDriver returned. When
	// set, the suite checks that acquiring with a Floor then resumes
	// above the floor.
	Wipe func(t *testing.T, d coord.Driver, domain string)
}

// ttl is the lease duration used with a fake clock.
const ttl = 10 * time.Second

// Run runs the conformance suite against the drivers newDriver returns,
// each wrapped with coord.New.
func Run(t *testing.T, newDriver func(t *testing.T, clk coord.Clock) coord.Driver, opts *Options) {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	tests := []struct {
		name string
		fn   func(*suite)
	}{
		{"StateOfNewDomain", (*suite).stateOfNewDomain},
		{"TokensIncrease", (*suite).tokensIncrease},
		{"HeldError", (*suite).heldError},
		{"ExpiryTakeover", (*suite).expiryTakeover},
		{"SameHolderTakeover", (*suite).sameHolderTakeover},
		{"Renew", (*suite).renewExtends},
		{"WrongTokenOrHolder", (*suite).wrongTokenOrHolder},
		{"ReleaseKeepsCounter", (*suite).releaseKeepsCounter},
		{"ForceWhileHeld", (*suite).forceWhileHeld},
		{"ForceFreeAndFloor", (*suite).forceFreeAndFloor},
		{"Floor", (*suite).floor},
		{"MaxToken", (*suite).maxToken},
		{"WipeResumesAboveFloor", (*suite).wipeResumesAboveFloor},
		{"TakeoverWipedMidway", (*suite).takeoverWipedMidway},
		{"IssuerOnlyNewest", (*suite).issuerOnlyNewest},
		{"RaceOneWinner", (*suite).raceOneWinner},
		{"RoundsDistinctIncreasing", (*suite).roundsDistinctIncreasing},
		{"DomainsIndependent", (*suite).domainsIndependent},
		{"InvalidArguments", (*suite).invalidArguments},
		{"AcquireWaitsForRelease", (*suite).acquireWaitsForRelease},
		{"SessionKeepsLeaseAlive", (*suite).sessionKeepsLeaseAlive},
		{"SessionEndsOnTakeover", (*suite).sessionEndsOnTakeover},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &suite{t: t, clk: NewFakeClock(FakeStart), opts: o, newD: newDriver, prefix: "coordtest-" + strings.ToLower(rand.Text()[:10])}
			s.d = newDriver(t, s.clk)
			s.c = s.coordinator(s.d)
			tt.fn(s)
		})
	}
}

// suite is the state of one subtest.
type suite struct {
	t      *testing.T
	d      coord.Driver       // the driver under test
	c      *coord.Coordinator // d as the suite calls it
	clk    *FakeClock
	opts   Options
	newD   func(t *testing.T, clk coord.Clock) coord.Driver
	prefix string
}

// coordinator returns d wrapped as users wrap it, with a check that
// it only ever receives valid arguments.
func (s *suite) coordinator(d coord.Driver) *coord.Coordinator {
	return coord.New(checked{Driver: d, errorf: s.t.Errorf})
}

// domain returns a domain unique to this subtest.
func (s *suite) domain(name string) string { return s.prefix + "/" + name }

func (s *suite) ctx() context.Context {
	ctx, cancel := context.WithTimeout(s.t.Context(), time.Minute)
	s.t.Cleanup(cancel)
	return ctx
}

// acquire takes domain's lease for holder and checks the lease returned.
func (s *suite) acquire(domain, holder string, floor uint64) coord.Lease {
	s.t.Helper()
	now := s.clk.Now()
	l, err := s.c.TryAcquire(s.ctx(), coord.Request{Domain: domain, Holder: holder, TTL: ttl, Floor: floor})
	if err != nil {
		s.t.Fatalf("TryAcquire(%q, holder %q, floor %d): %v", domain, holder, floor, err)
	}
	if l.Domain != domain || l.Holder != holder || l.Token == 0 || l.Token <= floor || l.Token > objstore.MaxToken {
		s.t.Fatalf("TryAcquire(%q, holder %q, floor %d) = %+v; want that domain and holder and a token in %d..%d", domain, holder, floor, l, floor+1, uint64(objstore.MaxToken))
	}
	if want := now.Add(ttl); !l.Expires.Equal(want) {
		s.t.Fatalf("TryAcquire(%q) expires %s; want the clock's now + TTL = %s", domain, l.Expires, want)
	}
	return l
}

func (s *suite) state(domain string) coord.State {
	s.t.Helper()
	st, err := s.c.State(s.ctx(), domain)
	if err != nil {
		s.t.Fatalf("State(%q): %v", domain, err)
	}
	if st.Domain != domain {
		s.t.Fatalf("State(%q).Domain = %q", domain, st.Domain)
	}
	return st
}

// wantHeldBy checks that domain's record shows l as its live holder.
func (s *suite) wantHeldBy(l coord.Lease) {
	s.t.Helper()
	st := s.state(l.Domain)
	if st.Holder != l.Holder || st.Token != l.Token || !st.Expires.Equal(l.Expires) || !st.Held(s.clk.Now()) {
		s.t.Fatalf("State(%q) = %+v; want held by %q with token %d until %s", l.Domain, st, l.Holder, l.Token, l.Expires)
	}
}

// wantReleased checks that domain's record has no holder and counter token.
func (s *suite) wantReleased(domain string, token uint64) {
	s.t.Helper()
	st := s.state(domain)
	if st.Holder != "" || st.Token != token || !st.Expires.IsZero() || st.Held(s.clk.Now()) {
		s.t.Fatalf("State(%q) = %+v; want released with token %d and zero expiry", domain, st, token)
	}
}

func (s *suite) wantHeldError(err error, by coord.Lease) {
	s.t.Helper()
	var he *coord.HeldError
	if !errors.Is(err, coord.ErrLeaseHeld) || !errors.As(err, &he) {
		s.t.Fatalf("got error %v; want a *coord.HeldError matching coord.ErrLeaseHeld", err)
	}
	if he.Domain != by.Domain || he.Holder != by.Holder || he.Token != by.Token || !he.Expires.Equal(by.Expires) {
		s.t.Fatalf("HeldError = %+v; want domain %q, holder %q, token %d, expires %s", *he, by.Domain, by.Holder, by.Token, by.Expires)
	}
	if !strings.Contains(err.Error(), by.Holder) {
		s.t.Fatalf("error %q does not name the holder %q", err, by.Holder)
	}
}

func (s *suite) wantLost(what string, err error) {
	s.t.Helper()
	if !errors.Is(err, coord.ErrLeaseLost) {
		s.t.Fatalf("%s: got error %v; want one matching coord.ErrLeaseLost", what, err)
	}
}

func (s *suite) renew(l coord.Lease, d time.Duration) (coord.Lease, error) {
	return s.c.Renew(s.ctx(), l, d)
}

func (s *suite) release(l coord.Lease) error { return s.c.Release(s.ctx(), l) }

func (s *suite) mustRelease(l coord.Lease) {
	s.t.Helper()
	if err := s.release(l); err != nil {
		s.t.Fatalf("Release(%q, token %d): %v", l.Domain, l.Token, err)
	}
}

func (s *suite) stateOfNewDomain() {
	d := s.domain("new")
	if st := s.state(d); st != (coord.State{Domain: d}) {
		s.t.Fatalf("State of a new domain = %+v; want only the domain set", st)
	}
}

func (s *suite) tokensIncrease() {
	d := s.domain("d")
	var got []uint64
	a := s.acquire(d, "A", 0)
	got = append(got, a.Token)
	s.mustRelease(a)

	b := s.acquire(d, "B", 0) // after release
	got = append(got, b.Token)

	s.clk.Advance(ttl + time.Millisecond)
	c := s.acquire(d, "C", 0) // expiry takeover
	got = append(got, c.Token)

	c2 := s.acquire(d, "C", 0) // same holder takes over
	got = append(got, c2.Token)
	s.mustRelease(c2)

	a2 := s.acquire(d, "A", 0)
	got = append(got, a2.Token)
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			s.t.Fatalf("tokens %v do not strictly increase", got)
		}
	}
	s.wantHeldBy(a2)
}

func (s *suite) heldError() {
	d := s.domain("d")
	a := s.acquire(d, "holder-A", 0)
	s.wantHeldBy(a)
	_, err := s.c.TryAcquire(s.ctx(), coord.Request{Domain: d, Holder: "holder-B", TTL: ttl})
	s.wantHeldError(err, a)

	s.clk.Advance(ttl - time.Millisecond) // still live, just
	_, err = s.c.TakeLease(s.ctx(), d, &coord.TakeOptions{Holder: "holder-B", TTL: ttl, Clock: s.clk})
	s.wantHeldError(err, a)
	s.wantHeldBy(a)
}

func (s *suite) expiryTakeover() {
	d := s.domain("d")
	a := s.acquire(d, "A", 0)
	s.clk.Set(a.Expires) // a lease is over at its Expires
	b := s.acquire(d, "B", 0)
	if b.Token <= a.Token {
		s.t.Fatalf("takeover after expiry got token %d; want above %d", b.Token, a.Token)
	}
	s.wantHeldBy(b)
	_, err := s.renew(a, ttl)
	s.wantLost("Renew by the expired holder", err)
	s.wantLost("Release by the expired holder", s.release(a))
	s.wantHeldBy(b)
}

func (s *suite) sameHolderTakeover() {
	d := s.domain("d")
	a1 := s.acquire(d, "A", 0)
	a2 := s.acquire(d, "A", 0)
	if a2.Token <= a1.Token {
		s.t.Fatalf("re-acquisition by the same holder got token %d; want above %d", a2.Token, a1.Token)
	}
	_, err := s.renew(a1, ttl)
	s.wantLost("Renew with the superseded token", err)
	s.wantLost("Release with the superseded token", s.release(a1))
	s.wantHeldBy(a2)
	if _, err := s.renew(a2, ttl); err != nil {
		s.t.Fatalf("Renew with the new token: %v", err)
	}
}

func (s *suite) renewExtends() {
	d := s.domain("d")
	a := s.acquire(d, "A", 0)
	s.clk.Advance(4 * time.Second)
	r, err := s.renew(a, ttl)
	if err != nil {
		s.t.Fatalf("Renew: %v", err)
	}
	want := a
	want.Expires = s.clk.Now().Add(ttl)
	if r.Domain != want.Domain || r.Holder != want.Holder || r.Token != want.Token || !r.Expires.Equal(want.Expires) {
		s.t.Fatalf("Renew = %+v; want %+v (same token, expiry now+TTL)", r, want)
	}
	s.wantHeldBy(r)

	s.clk.Set(a.Expires.Add(time.Second)) // past the original expiry
	_, err = s.c.TryAcquire(s.ctx(), coord.Request{Domain: d, Holder: "B", TTL: ttl})
	s.wantHeldError(err, r)

	s.clk.Set(r.Expires) // expired, not taken over
	_, err = s.renew(r, ttl)
	s.wantLost("Renew after expiry", err)
	if err := s.release(r); err != nil {
		s.t.Fatalf("Release of an expired lease nobody took over: %v", err)
	}
	s.wantReleased(d, a.Token)
}

func (s *suite) wrongTokenOrHolder() {
	d := s.domain("d")
	s.acquire(d, "A", 0)
	a := s.acquire(d, "A", 0) // token >= 2, so token-1 is a valid token
	for _, bad := range []coord.Lease{
		{Domain: d, Holder: "A", Token: a.Token + 1, Expires: a.Expires},
		{Domain: d, Holder: "A", Token: a.Token - 1, Expires: a.Expires},
		{Domain: d, Holder: "B", Token: a.Token, Expires: a.Expires},
	} {
		_, err := s.renew(bad, ttl)
		s.wantLost(fmt.Sprintf("Renew(holder %q, token %d)", bad.Holder, bad.Token), err)
		s.wantLost(fmt.Sprintf("Release(holder %q, token %d)", bad.Holder, bad.Token), s.release(bad))
	}
	s.wantHeldBy(a)
	if _, err := s.renew(a, ttl); err != nil {
		s.t.Fatalf("Renew with the right token: %v", err)
	}
}

func (s *suite) releaseKeepsCounter() {
	d := s.domain("d")
	a := s.acquire(d, "A", 0)
	s.mustRelease(a)
	s.wantReleased(d, a.Token)
	s.wantLost("second Release", s.release(a))
	_, err := s.renew(a, ttl)
	s.wantLost("Renew after Release", err)
	b := s.acquire(d, "B", 0)
	if b.Token <= a.Token {
		s.t.Fatalf("acquisition after release got token %d; want above %d", b.Token, a.Token)
	}
}

func (s *suite) floor() {
	d := s.domain("d")
	a := s.acquire(d, "A", 1000) // checks token > floor
	s.mustRelease(a)
	b := s.acquire(d, "A", 5) // the counter wins over a lower floor
	if b.Token <= a.Token {
		s.t.Fatalf("floor below the counter: token %d; want above %d", b.Token, a.Token)
	}
	c := s.acquire(d, "A", b.Token+100)
	if c.Token <= b.Token+100 {
		s.t.Fatalf("floor above the counter: token %d; want above %d", c.Token, b.Token+100)
	}
	s.wantHeldBy(c)
}

func (s *suite) maxToken() {
	d := s.domain("d")
	a := s.acquire(d, "A", objstore.MaxToken-1)
	if a.Token != objstore.MaxToken {
		s.t.Fatalf("floor MaxToken-1 gave token %d; want %d", a.Token, uint64(objstore.MaxToken))
	}
	s.mustRelease(a)
	l, err := s.c.TryAcquire(s.ctx(), coord.Request{Domain: d, Holder: "B", TTL: ttl})
	if err == nil || errors.Is(err, coord.ErrLeaseHeld) {
		s.t.Fatalf("acquisition after MaxToken = %+v, %v; want an error saying no higher token exists", l, err)
	}
	s.wantReleased(d, objstore.MaxToken)
}

func (s *suite) wipeResumesAboveFloor() {
	if s.opts.Wipe == nil {
		s.t.Skip("coordtest: Options.Wipe not set")
	}
	d := s.domain("d")
	s.acquire(d, "A", 0)
	a := s.acquire(d, "A", 0)
	s.mustRelease(a)
	s.opts.Wipe(s.t, s.d, d)
	if st := s.state(d); st.Token != 0 || st.Holder != "" {
		s.t.Fatalf("State after Wipe = %+v; want no record", st)
	}
	b := s.acquire(d, "B", a.Token) // checks token > floor
	s.wantHeldBy(b)
}

// workers is how many goroutines the concurrent subtests run.
const workers = 16

func (s *suite) raceOneWinner() {
	d := s.domain("d")
	ctx := s.ctx()
	start := make(chan struct{})
	leases := make([]coord.Lease, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			<-start
			leases[i], errs[i] = s.c.TryAcquire(ctx, coord.Request{Domain: d, Holder: fmt.Sprintf("worker-%02d", i), TTL: ttl})
		})
	}
	close(start)
	wg.Wait()
	var winner *coord.Lease
	for i, err := range errs {
		if err == nil {
			if winner != nil {
				s.t.Fatalf("two winners: %+v and %+v", *winner, leases[i])
			}
			winner = &leases[i]
		}
	}
	if winner == nil {
		s.t.Fatalf("no winner among %d racing acquisitions; errors: %v", workers, errs)
	}
	for _, err := range errs {
		if err != nil {
			s.wantHeldError(err, *winner)
		}
	}
	s.wantHeldBy(*winner)
}

func (s *suite) roundsDistinctIncreasing() {
	const rounds = 5
	d := s.domain("d")
	ctx := s.ctx()
	var (
		mu     sync.Mutex
		tokens []uint64 // in acquisition order: appended while holding the lease
		inside int
		wg     sync.WaitGroup
	)
	for i := range workers {
		wg.Go(func() {
			holder := fmt.Sprintf("worker-%02d", i)
			for r := 0; r < rounds; r++ {
				var l coord.Lease
				for {
					var err error
					l, err = s.c.TryAcquire(ctx, coord.Request{Domain: d, Holder: holder, TTL: ttl})
					if err == nil {
						break
					}
					if !errors.Is(err, coord.ErrLeaseHeld) || ctx.Err() != nil {
						s.t.Errorf("%s round %d: TryAcquire: %v", holder, r, err)
						return
					}
					time.Sleep(time.Millisecond + time.Duration(i)*100*time.Microsecond)
				}
				mu.Lock()
				inside++
				if inside != 1 {
					s.t.Errorf("%s holds token %d while another holder holds the lease", holder, l.Token)
				}
				tokens = append(tokens, l.Token)
				inside--
				mu.Unlock()
				if err := s.c.Release(ctx, l); err != nil {
					s.t.Errorf("%s round %d: Release(token %d): %v", holder, r, l.Token, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if s.t.Failed() {
		return
	}
	if len(tokens) != workers*rounds {
		s.t.Fatalf("%d acquisitions; want %d", len(tokens), workers*rounds)
	}
	for i := 1; i < len(tokens); i++ {
		if tokens[i] <= tokens[i-1] {
			s.t.Fatalf("tokens in acquisition order are not strictly increasing at %d: %v", i, tokens)
		}
	}
}

func (s *suite) domainsIndependent() {
	d1, d2, d3 := s.domain("a"), s.domain("a/b"), s.domain("c")
	a := s.acquire(d1, "A", 0)
	b := s.acquire(d2, "B", 0) // no HeldError: nested domains are separate
	s.wantHeldBy(a)
	s.wantHeldBy(b)
	s.mustRelease(a)
	s.wantHeldBy(b)

	misplaced := b
	misplaced.Domain = d1
	_, err := s.renew(misplaced, ttl)
	s.wantLost("Renew of a lease under another domain's name", err)
	s.wantLost("Release of a lease under another domain's name", s.release(misplaced))
	s.wantHeldBy(b)
	if st := s.state(d3); st.Token != 0 {
		s.t.Fatalf("untouched domain has token %d", st.Token)
	}
	c := s.acquire(d3, "C", 0)
	s.wantHeldBy(c)
}

func (s *suite) invalidArguments() {
	ctx := s.ctx()
	wantInvalid := func(what, value string, err error) {
		s.t.Helper()
		if !errors.Is(err, coord.ErrInvalid) {
			s.t.Fatalf("%s: got %v; want an error matching coord.ErrInvalid", what, err)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", value)) {
			s.t.Fatalf("%s: error %q does not name the value %q", what, err, value)
		}
	}
	for _, d := range []string{"", "/x", "x/", "a//b", "a/./b", "a/../b", "a/_fence", "a/_fence/b", "a\x00b", "a\nb", strings.Repeat("x", objstore.MaxKeyLen+1)} {
		_, err := s.c.TakeLease(ctx, d, &coord.TakeOptions{Holder: "A", Clock: s.clk})
		wantInvalid(fmt.Sprintf("Acquire(domain %q)", d), d, err)
		if !errors.Is(err, objstore.ErrInvalid) {
			s.t.Fatalf("Acquire(domain %q): %v; want an error matching objstore.ErrInvalid too", d, err)
		}
		_, err = s.c.TryAcquire(ctx, coord.Request{Domain: d, Holder: "A", TTL: ttl})
		wantInvalid(fmt.Sprintf("TryAcquire(domain %q)", d), d, err)
		_, err = s.c.State(ctx, d)
		wantInvalid(fmt.Sprintf("State(%q)", d), d, err)
	}
	d := s.domain("d")
	for _, h := range []string{"a\x00b", "tab\there", "\x7f", strings.Repeat("h", coord.MaxHolderLen+1), "bad\xffutf8"} {
		_, err := s.c.TakeLease(ctx, d, &coord.TakeOptions{Holder: h, Clock: s.clk})
		wantInvalid(fmt.Sprintf("Acquire(holder %q)", h), h, err)
		_, err = s.c.TryAcquire(ctx, coord.Request{Domain: d, Holder: h, TTL: ttl})
		wantInvalid(fmt.Sprintf("TryAcquire(holder %q)", h), h, err)
	}
	_, err := s.c.TryAcquire(ctx, coord.Request{Domain: d, Holder: "", TTL: ttl})
	wantInvalid("TryAcquire(empty holder)", "", err)
	for _, ttl := range []time.Duration{-time.Second, time.Millisecond, coord.MinTTL - 1, coord.MaxTTL + 1} {
		_, err := s.c.TakeLease(ctx, d, &coord.TakeOptions{Holder: "A", TTL: ttl, Clock: s.clk})
		wantInvalid(fmt.Sprintf("Acquire(TTL %s)", ttl), ttl.String(), err)
		_, err = s.c.TryAcquire(ctx, coord.Request{Domain: d, Holder: "A", TTL: ttl})
		wantInvalid(fmt.Sprintf("TryAcquire(TTL %s)", ttl), ttl.String(), err)
	}
	for _, f := range []uint64{objstore.MaxToken, objstore.MaxToken + 1, ^uint64(0)} {
		_, err := s.c.TakeLease(ctx, d, &coord.TakeOptions{Holder: "A", Floor: f, Clock: s.clk})
		wantInvalid(fmt.Sprintf("Acquire(floor %d)", f), fmt.Sprint(f), err)
	}
	if st := s.state(d); st.Token != 0 {
		s.t.Fatalf("rejected requests issued a token: %+v", st)
	}
	a := s.acquire(d, "A", 0)
	_, err = s.renew(a, coord.MinTTL-1)
	wantInvalid("Renew(TTL below MinTTL)", (coord.MinTTL - 1).String(), err)
	bad := a
	bad.Token = 0
	_, err = s.renew(bad, ttl)
	wantInvalid("Renew(token 0)", "0", err)
	wantInvalid("Release(token 0)", "0", s.release(bad))
	s.wantHeldBy(a)
}

// acquireWaitsForRelease checks that TakeLease with Wait does not wait
// for the expiry when the holder releases early.
func (s *suite) acquireWaitsForRelease() {
	d := s.domain("d")
	a := s.acquire(d, "A", 0)
	polled := make(chan struct{}, 1)
	w := s.coordinator(&notifying{Driver: s.d, tried: polled})
	type result struct {
		l   coord.Lease
		err error
	}
	done := make(chan result, 1)
	ctx := s.ctx()
	go func() {
		l, err := w.TakeLease(ctx, d, &coord.TakeOptions{Holder: "B", TTL: ttl, Wait: true, Clock: s.clk})
		done <- result{l, err}
	}()
	select {
	case <-polled: // B saw A's lease
	case r := <-done:
		s.t.Fatalf("Acquire with Wait returned while the lease was held: %+v, %v", r.l, r.err)
	}
	s.mustRelease(a)
	select {
	case r := <-done:
		if r.err != nil {
			s.t.Fatalf("Acquire with Wait: %v", r.err)
		}
		if r.l.Holder != "B" || r.l.Token <= a.Token {
			s.t.Fatalf("Acquire with Wait = %+v; want holder B with a token above %d", r.l, a.Token)
		}
	case <-time.After(5 * time.Second): // it polls about every second
		s.t.Fatalf("Acquire with Wait still waiting 5s after the holder released (lease TTL %s on a frozen clock)", ttl)
	}
}

// notifying signals each TryAcquire that finds the lease held.
type notifying struct {
	coord.Driver
	tried chan struct{}
}

func (n *notifying) TryAcquire(ctx context.Context, req coord.Request) (coord.Lease, error) {
	l, err := n.Driver.TryAcquire(ctx, req)
	if errors.Is(err, coord.ErrLeaseHeld) {
		select {
		case n.tried <- struct{}{}:
		default:
		}
	}
	return l, err
}

// sessionTTL is the lease duration of the session subtests, which run on
// the system clock.
const sessionTTL = time.Second

func (s *suite) realCoordinator() *coord.Coordinator {
	return s.coordinator(s.newD(s.t, coord.SystemClock{}))
}

func (s *suite) sessionKeepsLeaseAlive() {
	c := s.realCoordinator()
	d := s.domain("d")
	ctx := s.ctx()
	l, err := c.TakeLease(ctx, d, &coord.TakeOptions{Holder: "A", TTL: sessionTTL})
	if err != nil {
		s.t.Fatalf("Acquire: %v", err)
	}
	sess := coord.NewSession(ctx, c, l, nil)
	select {
	case <-sess.Done():
		s.t.Fatalf("session ended: %v", sess.Err())
	case <-time.After(5 * sessionTTL / 2):
	}
	cur := sess.Lease()
	if cur.Token != l.Token || !cur.Expires.After(l.Expires) {
		s.t.Fatalf("after 2.5 TTLs the session's lease is %+v; want token %d and an expiry after %s", cur, l.Token, l.Expires)
	}
	_, err = c.TryAcquire(ctx, coord.Request{Domain: d, Holder: "B", TTL: sessionTTL})
	if !errors.Is(err, coord.ErrLeaseHeld) {
		s.t.Fatalf("TryAcquire by another holder during the session: %v; want ErrLeaseHeld", err)
	}
	if err := sess.Release(ctx); err != nil {
		s.t.Fatalf("Session.Release: %v", err)
	}
	<-sess.Done()
	if !errors.Is(sess.Err(), coord.ErrReleased) {
		s.t.Fatalf("Err after Release = %v; want ErrReleased", sess.Err())
	}
	st, err := c.State(ctx, d)
	if err != nil || st.Holder != "" || st.Token != l.Token {
		s.t.Fatalf("State after Session.Release = %+v, %v; want released with token %d", st, err, l.Token)
	}
}

func (s *suite) sessionEndsOnTakeover() {
	c := s.realCoordinator()
	d := s.domain("d")
	ctx := s.ctx()
	l, err := c.TakeLease(ctx, d, &coord.TakeOptions{Holder: "A", TTL: sessionTTL})
	if err != nil {
		s.t.Fatalf("Acquire: %v", err)
	}
	sess := coord.NewSession(ctx, c, l, nil)
	l2, err := c.TryAcquire(ctx, coord.Request{Domain: d, Holder: "A", TTL: sessionTTL}) // same holder, new token
	if err != nil {
		s.t.Fatalf("takeover: %v", err)
	}
	select {
	case <-sess.Done():
	case <-time.After(10 * sessionTTL):
		s.t.Fatalf("session still live %s after its lease was taken over", 10*sessionTTL)
	}
	if !errors.Is(sess.Err(), coord.ErrLeaseLost) {
		s.t.Fatalf("Err after takeover = %v; want ErrLeaseLost", sess.Err())
	}
	if err := sess.Release(ctx); !errors.Is(err, coord.ErrLeaseLost) {
		s.t.Fatalf("Release after takeover = %v; want ErrLeaseLost", err)
	}
	if err := c.Release(ctx, l2); err != nil {
		s.t.Fatalf("Release of the new lease: %v", err)
	}
}
