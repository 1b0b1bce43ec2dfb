// Package fence ties a lease coordinator to a fenced store: Acquire is the
// takeover sequence every holder should follow. The two halves live in
// their own packages: coord issues leases and fencing tokens, objstore
// enforces the tokens at the store.
//
//	lease, err := fence.Acquire(ctx, store, coordinator, "reports/monthly", nil)
//	...
//	_, err = store.Put(ctx, "reports/monthly", "summary.csv", lease.Token, body, size)
package fence

import (
	"context"
	"fmt"
	"time"

	"github.com/fencedstore/fence/coord"
	"github.com/fencedstore/fence/objstore"
)

// AcquireOptions tunes Acquire. nil means defaults.
type AcquireOptions struct {
	// Holder names the lease holder. Default coord.DefaultHolder().
	Holder string
	// TTL is the lease duration. Default coord.DefaultTTL.
	TTL time.Duration
	// Wait makes Acquire wait, within ctx, for another holder's lease to
	// end instead of failing with coord.ErrLeaseHeld.
	Wait bool
	// NoFence skips fencing the store with the new token. The previous
	// holder's late writes are then rejected only from the new holder's
	// first commit on.
	NoFence bool
	// Clock judges lease expiry. Default: the system clock.
	Clock coord.Clock
}

// Acquire takes domain's lease from c and fences the domain at store:
//
//  1. it reads the store's highest accepted token for domain and passes it
//     to the coordinator as the floor, so that a coordinator whose records
//     were wiped still issues a token above every token the store has seen;
//  2. it acquires the lease (waiting if opts.Wait);
//  3. unless opts.NoFence, it raises the domain's highest token to the new
//     token with a data-less commit, so the previous holder's late writes
//     are rejected from this moment, even before the new holder writes.
//     The fence succeeds only if it is the commit that raised the domain
//     to this token: if the coordinator's records were wiped between our
//     floor read and our acquisition, it may have issued the same token
//     to another holder, and only the first of the two to fence gets in
//     (the other fails with a *objstore.FencedError whose ClaimedBy is
//     set). With NoFence, the store's highest token is read again
//     instead, and a token it already reached is refused.
//
// If fencing fails, the lease is released (best effort) and the error
// returned: a token the store cannot be fenced with protects nothing.
func Acquire(ctx context.Context, store *objstore.Store, c coord.Coordinator, domain string, opts *AcquireOptions) (coord.Lease, error) {
	var o AcquireOptions
	if opts != nil {
		o = *opts
	}
	floor, err := store.Highest(ctx, domain)
	if err != nil {
		return coord.Lease{}, fmt.Errorf("fence: acquire %q: read the store's highest token: %w", domain, err)
	}
	l, err := coord.Acquire(ctx, c, domain, &coord.AcquireOptions{Holder: o.Holder, TTL: o.TTL, Floor: floor, Wait: o.Wait, Clock: o.Clock})
	if err != nil {
		return coord.Lease{}, err
	}
	if o.NoFence {
		// Check the floor again: a coordinator wiped after our read may
		// have issued this token to another holder, who fenced with it.
		h, err := store.Highest(ctx, domain)
		if err == nil && h >= l.Token {
			err = fmt.Errorf("the store's highest token is already %d: the coordinator issued token %d again", h, l.Token)
		}
		if err != nil {
			release(ctx, c, l)
			return coord.Lease{}, fmt.Errorf("fence: acquire %q: check the store after acquiring token %d (lease released): %w", domain, l.Token, err)
		}
		return l, nil
	}
	if _, err := store.Fence(ctx, domain, l.Token); err != nil {
		release(ctx, c, l)
		return coord.Lease{}, fmt.Errorf("fence: acquire %q: fence the store at token %d (lease released): %w", domain, l.Token, err)
	}
	return l, nil
}

// release gives l back, best effort, even when ctx has ended.
func release(ctx context.Context, c coord.Coordinator, l coord.Lease) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	_ = c.Release(rctx, l)
	cancel()
}

// Issuer returns c as an objstore.TokenIssuer: a Store given it (in
// objstore.Options.Issuer) lets only the token c issued last raise a
// domain's highest token, so a token c never issued, or one whose lease
// has ended, can neither fence the real holder out nor create a domain
// whose manifest the store lost. It costs one consistent read of c's
// record per new token and Store.
func Issuer(c coord.Coordinator) objstore.TokenIssuer { return issuer{c} }

type issuer struct{ c coord.Coordinator }

func (i issuer) LastIssued(ctx context.Context, domain string) (uint64, error) {
	st, err := i.c.State(ctx, domain)
	if err != nil {
		return 0, err
	}
	return st.Token, nil
}
