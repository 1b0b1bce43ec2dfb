package coord

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/fencedstore/fence/rules"

	"github.com/fencedstore/fence/internal/backoff"
)

// TakeOptions tunes Coordinator.TakeLease. nil or zero fields mean defaults.
type TakeOptions struct {
	// Holder names the caller in the lease record and in *HeldError.
	// Default: DefaultHolder().
	Holder string
	// TTL is the lease duration, between MinTTL and MaxTTL. Default
	// DefaultTTL.
	TTL time.Duration
	// Floor makes the token greater than Floor; pass the store's highest
	// token for the domain so that a wiped coordinator resumes above it.
	// It must be below rules.MaxToken.
	Floor uint64
	// Wait makes TakeLease wait, honouring ctx, while another holder's lease
	// is live, instead of returning its *HeldError.
	Wait bool
	// Force takes the lease even while another holder's lease is live
	// (Request.Force), ending that lease; Wait is then moot.
	Force bool
	// Clock judges how long the current holder's lease has left while
	// waiting. Default SystemClock.
	Clock Clock
}

// pollMax is the longest TakeLease waits between attempts while another
// holder's lease is live: the holder may release early.
const pollMax = time.Second

// TakeLease applies opts' defaults, checks the request once and takes
// domain's lease. It neither reads the store's highest token nor fences
// the store: most callers want fence.Acquire, which does both and keeps
// the lease alive in a Session.
// Without opts.Wait it makes one attempt and returns a *HeldError (which
// matches ErrLeaseHeld) when another holder's lease is live. With Wait it
// polls until it gets the lease or ctx ends: about every second while the
// holder's lease has more than a second left (it may release early), and
// just after the lease's expiry otherwise. Invalid arguments fail with an
// *InvalidError (ErrInvalid) before anything is sent.
func (c *Coordinator) TakeLease(ctx context.Context, domain string, opts *TakeOptions) (Lease, error) {
	var o TakeOptions
	if opts != nil {
		o = *opts
	}
	if o.Holder == "" {
		o.Holder = DefaultHolder()
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	req := Request{Domain: domain, Holder: o.Holder, TTL: o.TTL, Floor: o.Floor, Force: o.Force}
	if err := ValidateRequest(req); err != nil {
		return Lease{}, err
	}
	clk := orSystem(o.Clock)
	skew := backoff.Backoff{Base: 10 * time.Millisecond, Max: pollMax}
	for {
		l, err := c.tryAcquire(ctx, req) // req is checked
		var held *HeldError
		if err == nil || !o.Wait || !errors.As(err, &held) {
			return l, err
		}
		if serr := backoff.Sleep(ctx, pollDelay(held.Expires.Sub(clk.Now()), &skew)); serr != nil {
			return Lease{}, fmt.Errorf("coord: acquire %q: stopped waiting: %w; last attempt: %w", domain, serr, err)
		}
	}
}

// pollDelay returns how long to wait before the next attempt when the
// holder's lease has remaining left by our clock.
func pollDelay(remaining time.Duration, skew *backoff.Backoff) time.Duration {
	switch {
	case remaining > pollMax:
		skew.Reset()
		return backoff.Jitter(pollMax)
	case remaining > 0:
		// Just after the expiry, spread out so that waiters do not
		// arrive at once.
		skew.Reset()
		return remaining + time.Millisecond + rand.N(20*time.Millisecond)
	default:
		// Expired by our clock but still held by the coordinator's:
		// clock skew, or a renewal we have not seen. Back off.
		return skew.Next()
	}
}

// DefaultHolder returns "<hostname>/<pid>", the holder name used when none
// is given (rules.DefaultHolder, which objstore's commit log uses too).
func DefaultHolder() string { return rules.DefaultHolder() }
