package coord

import (
	"context"
	"time"

	"github.com/fencedstore/fence/observe"
)

// Coordinator issues leases and fencing tokens from a Driver. It checks
// every argument once, before anything is sent, so that its driver
// receives only valid input: an invalid domain, holder, TTL, floor or
// token fails with an *InvalidError (ErrInvalid) and never reaches the
// driver. Otherwise each method is its Driver's method, with the same
// semantics (see Driver).
//
// Use TakeLease for acquisition with defaults and optional waiting, and
// NewSession to keep a lease alive. A Coordinator is safe for concurrent
// use if its driver is.
type Coordinator struct {
	d Driver
	o observe.Observer // nil: none
}

// An Option configures a Coordinator.
type Option func(*Coordinator)

// WithObserver makes the coordinator report every lease event and every
// call to its driver, with its latency, to o (see package observe).
func WithObserver(o observe.Observer) Option { return func(c *Coordinator) { c.o = o } }

// New returns a Coordinator over d, which must not be nil.
func New(d Driver, opts ...Option) *Coordinator {
	c := &Coordinator{d: d}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Driver returns the driver the coordinator calls.
func (c *Coordinator) Driver() Driver { return c.d }

// TryAcquire checks req (ValidateRequest) and makes one acquisition
// attempt (Driver.TryAcquire). It applies no defaults: TakeLease does.
func (c *Coordinator) TryAcquire(ctx context.Context, req Request) (Lease, error) {
	if err := ValidateRequest(req); err != nil {
		return Lease{}, err
	}
	return c.tryAcquire(ctx, req)
}

// tryAcquire is the driver's TryAcquire, observed.
func (c *Coordinator) tryAcquire(ctx context.Context, req Request) (Lease, error) {
	start := time.Now()
	l, err := c.d.TryAcquire(ctx, req)
	c.observeAcquire(ctx, start, req, l, err)
	return l, err
}

// Renew checks l (ValidateLease) and ttl (ValidateTTL) and extends the
// lease to now+ttl (Driver.Renew).
func (c *Coordinator) Renew(ctx context.Context, l Lease, ttl time.Duration) (Lease, error) {
	if err := ValidateLease(l); err != nil {
		return Lease{}, err
	}
	if err := ValidateTTL(ttl); err != nil {
		return Lease{}, err
	}
	start := time.Now()
	nl, err := c.d.Renew(ctx, l, ttl)
	c.observeLease(ctx, start, "renew", observe.Renewed, l, nl.Expires, err)
	return nl, err
}

// Release checks l (ValidateLease) and ends the lease (Driver.Release).
func (c *Coordinator) Release(ctx context.Context, l Lease) error {
	if err := ValidateLease(l); err != nil {
		return err
	}
	start := time.Now()
	err := c.d.Release(ctx, l)
	c.observeLease(ctx, start, "release", observe.Released, l, time.Time{}, err)
	return err
}

// State checks domain (ValidateDomain) and reads its record
// (Driver.State).
func (c *Coordinator) State(ctx context.Context, domain string) (State, error) {
	if err := ValidateDomain(domain); err != nil {
		return State{}, err
	}
	start := time.Now()
	st, err := c.d.State(ctx, domain)
	c.observeCall(ctx, "state", start, err)
	return st, err
}
