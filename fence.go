package fence

import (
	"context"
	"errors"
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
	// Wait makes Acquire wait, within Acquire's ctx, for another holder's
	// lease to end instead of failing with coord.ErrLeaseHeld. Bound the
	// wait with a deadline on that ctx: it never ends the session.
	Wait bool
	// Lifetime, when set, ends the session when it ends (the session's
	// Err is then its cause), as etcd's concurrency.WithContext does.
	// Default: nothing but Release, Orphan or the loss of the lease ends
	// the session; Acquire's ctx bounds only the acquisition.
	Lifetime context.Context
	// Force takes the lease even while another holder's lease is live
	// (coord.Request.Force), ending it; with the store fenced at the new
	// token (not NoFence), that holder's late writes are then rejected.
	// Break uses it.
	Force bool
	// NoFence skips fencing the store with the new token: the first
	// commit at the token through the Store given to Acquire fences the
	// domain instead, and claims the token as the fence would have
	// (objstore.Store.Claim): if another commit raised the domain to the
	// same token first (a coordinator whose records were wiped can issue
	// a token twice), it is refused with a *objstore.FencedError whose
	// ClaimedBy is set. The previous holder's late writes are rejected
	// only from that commit on. A token used through another Store or
	// process claims nothing there; see CheckUnclaimed.
	NoFence bool
	// Clock judges lease expiry. Default: the system clock.
	Clock coord.Clock
	// Session tunes the session that keeps the lease alive. Its TTL
	// defaults to TTL and its Clock to Clock.
	Session *coord.SessionOptions
}

// TakeoverError reports a lease that was taken but could not be made safe
// to write with: the store could not be fenced at its token (or, by
// CheckUnclaimed, was found already raised to it). The lease has been released. Err says why; it matches
// objstore.ErrFenced when another holder's commit already reached the
// token.
type TakeoverError struct {
	Domain string
	Token  uint64
	Err    error
}

func (e *TakeoverError) Error() string {
	return fmt.Sprintf("fence: acquire %q: token %d was issued, but fencing the store with it failed (lease released): %v", e.Domain, e.Token, e.Err)
}

func (e *TakeoverError) Unwrap() error { return e.Err }

// Acquire takes domain's lease from c and fences the domain at store:
//
//  1. it reads the store's highest accepted token for domain, the floor,
//     while it takes the lease (Coordinator.TakeLease): the new token must
//     be above it, and if it is not (a coordinator whose records were
//     wiped issues tokens again from where its records restart) Acquire
//     takes the lease again with the floor, so that the token is above
//     every token the store has seen;
//  2. if another holder's lease is live and opts.Wait, it waits for it
//     (TakeLease with the floor), then reads the floor again;
//  3. unless opts.NoFence, it raises the domain's highest token to the new
//     token with a data-less commit, so the previous holder's late writes
//     are rejected from this moment, even before the new holder writes
//     (the manifest's log records the fence under the lease's holder).
//     The fence succeeds only if it is the commit that raised the domain
//     to this token: if the coordinator's records were wiped between our
//     floor read and our acquisition, it may have issued the same token
//     to another holder, and only the first of the two to fence gets in
//     (the other fails with a *objstore.FencedError whose ClaimedBy is
//     set). With NoFence, the first commit at the token through store
//     does both instead (objstore.Store.Claim);
//  4. it starts a Session that renews the lease in the background until
//     the lease is lost, Release or Orphan is called, or opts.Lifetime
//     ends.
//
// ctx bounds the acquisition only: the wait for a busy lease (opts.Wait),
// the floor reads and the fence. Its deadline or cancellation after
// Acquire has returned does not end the session, so
//
//	wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
//	sess, err := fence.Acquire(wctx, store, c, domain, &fence.AcquireOptions{Wait: true})
//	cancel()
//
// waits at most 2 seconds and then holds the lease for as long as the job
// runs. To end the session with a context, pass it as opts.Lifetime. The
// session keeps ctx's values, not its cancellation.
//
// If fencing fails, the lease is released (best effort) and a
// *TakeoverError names its token: a token the store cannot be fenced with
// protects nothing.
func Acquire(ctx context.Context, store *objstore.Store, c *coord.Coordinator, domain string, opts *AcquireOptions) (*coord.Session, error) {
	var o AcquireOptions
	if opts != nil {
		o = *opts
	}
	l, err := acquire(ctx, store, c, domain, o)
	if err != nil {
		return nil, err
	}
	so := coord.SessionOptions{}
	if o.Session != nil {
		so = *o.Session
	}
	if so.TTL == 0 {
		so.TTL = o.TTL
	}
	if so.Clock == nil {
		so.Clock = o.Clock
	}
	life := o.Lifetime
	if life == nil {
		life = context.WithoutCancel(ctx)
	}
	return coord.NewSession(life, c, l, &so), nil
}

// acquire is steps 1 to 3, in two sequential round trips where it can:
// the store's highest token (a manifest read, which also leaves the
// manifest and its ETag in the Store's cache for the fence) is read while
// the lease is taken, and the fence follows.
func acquire(ctx context.Context, store *objstore.Store, c *coord.Coordinator, domain string, o AcquireOptions) (coord.Lease, error) {
	take := &coord.TakeOptions{Holder: o.Holder, TTL: o.TTL, Force: o.Force, Clock: o.Clock}
	var (
		floor uint64
		ferr  error
		read  = make(chan struct{})
	)
	go func() {
		defer close(read)
		floor, ferr = store.Highest(ctx, domain)
	}()
	l, err := c.TakeLease(ctx, domain, take)
	<-read
	if ferr != nil {
		if err == nil {
			release(ctx, c, l)
		}
		return coord.Lease{}, fmt.Errorf("fence: acquire %q: read the store's highest token: %w", domain, ferr)
	}
	switch {
	case err == nil:
	case o.Wait && errors.Is(err, coord.ErrLeaseHeld):
		// Held: wait for it, with the floor read. The manifest may move
		// while we wait, so read the floor again once we have the lease.
		take.Wait, take.Floor = true, floor
		if l, err = c.TakeLease(ctx, domain, take); err != nil {
			return coord.Lease{}, err
		}
		if floor, err = store.Highest(ctx, domain); err != nil {
			release(ctx, c, l)
			return coord.Lease{}, fmt.Errorf("fence: acquire %q: read the store's highest token: %w", domain, err)
		}
	default:
		return coord.Lease{}, err
	}
	if l.Token <= floor {
		// The coordinator is behind the store (its records were wiped):
		// we hold the lease, so take it again, above the store's highest
		// token. The token issued first is never used.
		take.Wait, take.Floor = false, floor
		if l, err = c.TakeLease(ctx, domain, take); err != nil {
			return coord.Lease{}, err
		}
	}
	if o.NoFence {
		// No fence: the first commit at the token through store raises
		// the domain to it, and claims it as the fence would have. It
		// may come much later, so it asks the issuer (if any) itself.
		store.Claim(domain, l.Token)
		return l, nil
	}
	// The token is the coordinator's own answer: the fence need not ask
	// it again (objstore.Options.Issuer). A fence is a commit without
	// changes (Store.Fence), logged under the lease's holder.
	store.NoteIssued(domain, l.Token)
	if _, err := store.Commit(ctx, domain, l.Token, nil, &objstore.CommitOptions{Holder: l.Holder}); err != nil {
		release(ctx, c, l)
		return coord.Lease{}, &TakeoverError{Domain: domain, Token: l.Token, Err: err}
	}
	return l, nil
}

// release gives l back, best effort, even when ctx has ended.
func release(ctx context.Context, c *coord.Coordinator, l coord.Lease) {
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
func Issuer(c *coord.Coordinator) objstore.TokenIssuer { return issuer{c} }

type issuer struct{ c *coord.Coordinator }

func (i issuer) LastIssued(ctx context.Context, domain string) (uint64, error) {
	st, err := i.c.State(ctx, domain)
	if err != nil {
		return 0, err
	}
	return st.Token, nil
}
