package coordtest

import (
	"context"
	"time"

	"github.com/fencedstore/fence/coord"
)

// checked is the driver under test as the suite wraps it: it reports
// (with errorf) any argument that coord.Coordinator should have rejected
// before calling a driver, and returns the rejection without passing the
// argument on.
type checked struct {
	coord.Driver
	errorf func(format string, args ...any)
}

func (c checked) bad(call string, err error) error {
	c.errorf("coordtest: the driver received an invalid argument to %s, which coord.Coordinator must reject: %v", call, err)
	return err
}

func (c checked) TryAcquire(ctx context.Context, req coord.Request) (coord.Lease, error) {
	if err := coord.ValidateRequest(req); err != nil {
		return coord.Lease{}, c.bad("TryAcquire", err)
	}
	return c.Driver.TryAcquire(ctx, req)
}

func (c checked) Renew(ctx context.Context, l coord.Lease, ttl time.Duration) (coord.Lease, error) {
	if err := coord.ValidateLease(l); err != nil {
		return coord.Lease{}, c.bad("Renew", err)
	}
	if err := coord.ValidateTTL(ttl); err != nil {
		return coord.Lease{}, c.bad("Renew", err)
	}
	return c.Driver.Renew(ctx, l, ttl)
}

func (c checked) Release(ctx context.Context, l coord.Lease) error {
	if err := coord.ValidateLease(l); err != nil {
		return c.bad("Release", err)
	}
	return c.Driver.Release(ctx, l)
}

func (c checked) State(ctx context.Context, domain string) (coord.State, error) {
	if err := coord.ValidateDomain(domain); err != nil {
		return coord.State{}, c.bad("State", err)
	}
	return c.Driver.State(ctx, domain)
}
