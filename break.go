package fence

import (
	"context"
	"fmt"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// BreakOptions tunes Break. nil means defaults.
type BreakOptions struct {
	// Holder names who breaks the lease; it holds the domain's lease for
	// the moment between the forced acquisition and its release. Default
	// coord.DefaultHolder().
	Holder string
	// TTL is the duration of that lease, which matters only if its
	// release fails. Default coord.DefaultTTL.
	TTL time.Duration
}

// Broken reports what Break did.
type Broken struct {
	Domain string
	// Old is domain's lease record as read just before the break: the
	// holder it ended (Holder "" when nobody held the lease) and the last
	// token issued before.
	Old coord.State
	// Token is the token the break took and fenced the store with. Every
	// write with a lower token is rejected by the store from then on.
	Token uint64
}

// Break ends whatever lease domain has, live or not, and fences the
// store so that the old holder's late writes are rejected:
//
//  1. it reads domain's lease record, to report the old holder;
//  2. it takes the lease with coord.Request.Force, passing the store's
//     highest token as the floor, so it gets a token above every token
//     issued or accepted before; the old holder's Renew and Release (and
//     its Session) then fail with coord.ErrLeaseLost;
//  3. it fences the store with the new token (as Acquire does), so every
//     commit with the old token fails with objstore.ErrFenced, even one
//     the old holder had already started;
//  4. it releases the new lease, so the next acquisition succeeds at once.
//
// Safety does not depend on clocks: the old holder is kept out by the
// store's token check, not by its lease's expiry. If fencing fails, the
// lease is released and a *TakeoverError says why; the old holder has
// then lost its lease but the store was not fenced at the new token
// (run Break again). If only the release fails, Break returns its result
// with the error: the store is fenced, and the breaker's lease ends after
// opts.TTL.
func Break(ctx context.Context, store *objstore.Store, c *coord.Coordinator, domain string, opts *BreakOptions) (Broken, error) {
	var o BreakOptions
	if opts != nil {
		o = *opts
	}
	old, err := c.State(ctx, domain)
	if err != nil {
		return Broken{}, fmt.Errorf("fence: break %q: read the lease record: %w", domain, err)
	}
	l, err := acquire(ctx, store, c, domain, AcquireOptions{Holder: o.Holder, TTL: o.TTL, Force: true})
	if err != nil {
		return Broken{}, fmt.Errorf("fence: break %q: %w", domain, err)
	}
	res := Broken{Domain: domain, Old: old, Token: l.Token}
	if err := c.Release(ctx, l); err != nil {
		return res, fmt.Errorf("fence: break %q: the store is fenced at token %d, but releasing the breaker's lease failed (it ends at %s): %w", domain, l.Token, l.Expires.UTC().Format(time.RFC3339Nano), err)
	}
	return res, nil
}
